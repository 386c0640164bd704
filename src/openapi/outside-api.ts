import { ref, refs, RETRY_AFTER, type Json } from './components.js';

/** The path item of the health check, outside `/api/` (the space's own outside routes are the space app's). */
function healthItem() {
  const health = (method: string) => ({
    tags: ['operations'],
    operationId: `${method}Health`,
    summary: method === 'get' ? 'Whether the service and its database answer' : 'The health check without a body',
    // HEAD: the same statuses and headers, no body.
    responses: {
      200: { description: 'Up', ...(method === 'get' ? { content: { 'application/json': { schema: ref('Health') } } } : {}) },
      503: {
        description: 'The database did not answer in time (`{"status": "unavailable", "database": "down"}`), or the server is shutting down (`{"detail": …}`)',
        headers: RETRY_AFTER,
        ...(method === 'get' ? { content: { 'application/json': { schema: { anyOf: [ref('Health'), ref('Error')] } } } } : {}),
      },
      ...refs({ 500: 'InternalError' }),
    },
  });
  return {
    summary: 'Health check',
    description: "For load balancers: none of the API's conventions apply. `Cache-Control: no-store`.",
    get: health('get'),
    head: health('head'),
    'x-other-methods': { description: 'Any other method', responses: refs({ 405: 'MethodNotAllowed' }) },
  };
}

export const healthPathItem = (path: string): Json => ({ [path]: healthItem() });
