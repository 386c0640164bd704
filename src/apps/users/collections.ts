import { collection } from '../../drf/collections.js';
import * as users from './users.js';
import { USERS_TABLES } from './tables.js';

/** `/api/users/`. */
export const USERS = collection(USERS_TABLES, {
  viewName: 'User',
  rootOrder: 3,
  table: 'users',
  // Avatars come from users' e-mail addresses.
  reads: ['users'],
  record: users.UserRecord,
  fields: users.UserFields,
  count: users.countUsers,
  list: users.listUsers,
  find: users.findUser,
  toRecord: users.userRecord,
  create: (db, input: users.UserInput, nowUs) => users.createUser(db, input, nowUs),
  update: (db, id, input: Partial<users.UserInput>, nowUs) => users.updateUser(db, id, input, nowUs),
  remove: users.deleteUser,
});
