import { linked } from '../../interchange/export.js';
import { link, type ModelDeclarations } from '../../interchange/models.js';
import { PROJECT_STATUSES } from './projects.js';
import { PROJECTS_TABLES } from './tables.js';

const PARTICIPANTS = link('participants', PROJECTS_TABLES, 'project_participants');
const DEPENDENCIES = link('dependencies', PROJECTS_TABLES, 'project_dependencies');

/** The original's model the projects app imports and exports. */
export const PROJECTS_MODELS: ModelDeclarations<typeof PROJECTS_TABLES> = {
  'projects.project': {
    fields: new Set(['title', 'maintainer', 'participants', 'status', 'progress', 'short_description', 'content', 'created', 'modified', 'dependencies', 'picture']),
    read: (f, d) => {
      const created = f.nullableTime('created') ?? d.nowUs;
      return {
        values: [
          f.string('title'),
          f.reference('maintainer'),
          f.choice('status', PROJECT_STATUSES),
          f.integer('progress', 0, 100),
          f.string('short_description', ''),
          f.string('content', ''),
          created,
          f.nullableTime('modified') ?? created,
          f.path('picture', 100),
        ],
        links: [f.references('participants'), f.references('dependencies')],
      };
    },
    links: [PARTICIPANTS, DEPENDENCIES],
    page: async (db, after, limit, fit) => {
      const rows = await db.selectFrom('projects').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute();
      const ids = rows.map((r) => r.id);
      const participants = await linked(db, PARTICIPANTS, ids);
      const dependencies = await linked(db, DEPENDENCIES, ids);
      const times = fit.times;
      return rows.map((r) => {
        // Never null since migration 0009; the original requires both.
        const created = r.created_us ?? r.modified_us ?? 0;
        return {
          pk: r.id,
          fields: {
            title: fit.text(r.title, 300),
            maintainer: r.maintainer_id,
            participants: participants.get(r.id) ?? [],
            created: times.format(Number(created)),
            modified: times.format(Number(r.modified_us ?? created)),
            status: r.status,
            progress: r.progress,
            dependencies: dependencies.get(r.id) ?? [],
            picture: r.picture === null ? null : fit.text(r.picture, 100),
            short_description: fit.text(r.short_description, 1000),
            content: r.content,
          },
        };
      });
    },
  },
};
