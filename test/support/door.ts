import { request, type HttpResponse } from './http.js';

/** A door report (`POST /api/space/openings/` as JSON): 201 for a change, 200 for the state it already has. */
export function doorPost(base: string, secret: string, isOpen: boolean): Promise<HttpResponse> {
  return request(base, '/api/space/openings/', {
    method: 'POST',
    headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ is_open: isOpen }),
  });
}
