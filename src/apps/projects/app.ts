import type { AppDeclaration } from '../../http/app-declaration.js';
import { PROJECTS_LOCALE } from './words.js';
import { PROJECTS_PANELS } from './web/panels.js';
import { originalPaths, originalRecordAddress } from '../../routes/original-addresses.js';
import { detailRoute, pageRoute, PAGE_HEADERS, pattern } from '../../routes/pages.js';
import { formRoutes } from '../../routes/record-forms.js';
import { HTML_TYPE } from '../../web/layout.js';
import { projectListPage } from './web/list.js';
import { projectDetail } from './web/detail.js';
import { PROJECT_FORMS } from './forms.js';
import { recordNotices } from '../../web/notices.js';
import { FORM_MEMBERS, takingPartRoutes } from '../users/index.js';
import { PROJECTS } from './collections.js';
import { PROJECTS_MODELS } from './interchange.js';
import { PROJECTS_TABLES } from './tables.js';

/**
 * The projects (members.md §4): what members build, its maintainer and participants,
 * `/api/projects/`, the list, the pages and the forms. The original's `projects` app. Its declaration.
 */
export const projectsApp: AppDeclaration = {
  name: 'projects',
  locale: PROJECTS_LOCALE,
  needs: ['users'],
  migrations: {},
  tables: PROJECTS_TABLES,
  models: PROJECTS_MODELS,
  optional: true,
  collections: [PROJECTS],
  routes: [
    // The original's addresses of the pages and forms (members.md §4), each a 301 to ours.
    originalPaths('original new project', ['/projects/add', '/projects/add/'], '/projects/new/'),
    originalRecordAddress('original project edit', '/projects/edit', (id) => `/projects/${id}/edit/`),
    originalRecordAddress('original project join', '/projects/participe', (id) => `/projects/${id}/`),
    originalRecordAddress('original project leave', '/projects/noparticipe', (id) => `/projects/${id}/`),
    // The forms before the pages: `/projects/new/` is no project's page.
    ...formRoutes(PROJECT_FORMS, FORM_MEMBERS),
    pageRoute('projects', '/projects/', pattern(/^\/projects\/$/), {
      reads: ['projects', 'users'],
      type: HTML_TYPE,
      headers: PAGE_HEADERS,
      build: (ctx) => projectListPage(ctx),
    }),
    detailRoute('projects', PROJECTS.reads, projectDetail),
    ...takingPartRoutes('projects'),
  ],
  panels: PROJECTS_PANELS,
  notices: recordNotices(PROJECT_FORMS),
  nav: [{ href: '/projects/', label: 'projects.nav', order: 10 }],
};
