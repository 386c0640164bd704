import type { ModelDeclarations } from '../../interchange/models.js';
import type { SPACE_TABLES } from './tables.js';

/** The original's model the space app imports and exports: the openings (the space's status changes). */
export const SPACE_MODELS: ModelDeclarations<typeof SPACE_TABLES> = {
  'space.spacestatus': {
    fields: new Set(['time', 'is_open']),
    read: (f) => ({ values: [f.time('time'), f.boolean('is_open')] }),
    page: async (db, after, limit, { times }) => {
      const rows = await db.selectFrom('openings').select(['id', 'time_us', 'is_open']).where('id', '>', after).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ pk: r.id, fields: { time: times.format(Number(r.time_us)), is_open: r.is_open === 1 } }));
    },
  },
};
