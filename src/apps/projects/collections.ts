import { collection } from '../../drf/collections.js';
import type { MemberWrites } from '../../drf/member-writes.js';
import { hasRight, mayEditProject } from '../users/index.js';
import * as projects from './projects.js';
import { PROJECTS_TABLES } from './tables.js';

const PROJECT_RIGHTS = { add: 'projects.add_project', change: 'projects.change_project', delete: 'projects.delete_project' } as const;

/** Members write projects with the model's rights; a maintainer also edits their own (members.md §3). */
const PROJECT_WRITES: MemberWrites = {
  rights: PROJECT_RIGHTS,
  mayCreate: (db, userId) => hasRight(db, userId, PROJECT_RIGHTS.add),
  mayEdit: mayEditProject,
  mayDelete: (db, userId) => hasRight(db, userId, PROJECT_RIGHTS.delete),
  owner: { field: 'maintainer', mayChoose: (db, userId) => hasRight(db, userId, PROJECT_RIGHTS.change) },
};

/** `/api/projects/`. */
export const PROJECTS = collection(PROJECTS_TABLES, {
  viewName: 'Project',
  rootOrder: 4,
  table: 'projects',
  // Participants are listed in their usernames' order.
  reads: ['projects', 'project_participants', 'users'],
  record: projects.ProjectRecord,
  fields: projects.ProjectFields,
  count: projects.countProjects,
  list: projects.listProjects,
  find: projects.findProject,
  toRecord: projects.projectRecord,
  create: (db, input: projects.ProjectInput, nowUs) => projects.createProject(db, input, nowUs),
  update: (db, id, input: Partial<projects.ProjectInput>, nowUs) => projects.updateProject(db, id, input, nowUs),
  remove: projects.deleteProject,
  memberWrites: PROJECT_WRITES,
});
