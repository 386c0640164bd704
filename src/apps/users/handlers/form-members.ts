import type { FormMembers } from '../../../handlers/form-members.js';
import { findMembers, membersById } from '../member-choice.js';
import { memberPage } from './member-pages.js';

/** The members as the record forms of other apps take them (routes/record-forms.ts): their pages for members only, and the member pickers' lookups. */
export const FORM_MEMBERS: FormMembers = {
  page: (declaration) => memberPage({ ...declaration, requires: 'member' }),
  find: (db, query) => findMembers(db, query),
  byId: membersById,
};
