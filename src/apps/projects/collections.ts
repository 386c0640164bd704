import { collection } from '../../drf/collections.js';
import * as projects from './projects.js';
import { PROJECTS_TABLES } from './tables.js';

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
});
