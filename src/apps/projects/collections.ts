import { collection } from '../../drf/collections.js';
import type { MemberWrites } from '../../drf/member-writes.js';
import { hasRight, mayEditProject } from '../users/index.js';
import * as projects from './projects.js';

/** Members write projects with the model's rights; a maintainer also edits their own (members.md §3). */
const PROJECT_WRITES: MemberWrites = {
  mayCreate: (db, userId) => hasRight(db, userId, 'projects.add_project'),
  mayEdit: mayEditProject,
  mayDelete: (db, userId) => hasRight(db, userId, 'projects.delete_project'),
  owner: { field: 'maintainer', mayChoose: (db, userId) => hasRight(db, userId, 'projects.change_project') },
};

/** `/api/projects/`. */
export const PROJECTS = collection({
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
