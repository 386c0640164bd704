import type { FastifyReply } from 'fastify';
import { checkSecret } from '../../../drf/auth.js';
import { parseBody } from '../../../drf/body.js';
import { ApiError } from '../../../drf/errors.js';
import type { RequestData } from '../../../drf/serializer.js';
import { sendJson } from '../../../http/reply.js';
import type { Exchange } from '../../../http/route.js';
import { reportDoor } from './door.js';

/**
 * `POST /space/change_status` with form fields `secret` (a door or admin token) and `open`
 * (0 or 1): records the change under the door's rule and answers `{"open": 0|1}` whether or not
 * the state changed. Errors keep the original's `{"error": "..."}` shape and never repeat the
 * secret (the original did).
 */
export async function answerLegacyDoor({ request, reply, services }: Exchange): Promise<FastifyReply> {
  const { database, writes, throttle } = services;
  reply.header('allow', 'POST');
  try {
    if (request.method !== 'POST') throw new ApiError(400, 'Only POST requests are allowed');
    const data = await legacyBody(request.headers['content-type'], request.body as Buffer | undefined);
    const field = (name: string): string | undefined => {
      if (data.kind === 'form') return data.fields.get(name)?.at(-1);
      const value = (data.value as Record<string, unknown> | null)?.[name];
      // Whatever a JSON client sends is read as text, as the original's str() did.
      // eslint-disable-next-line @typescript-eslint/no-base-to-string
      return value === undefined || value === null ? undefined : String(value);
    };
    const secret = field('secret');
    if (secret === undefined) throw new ApiError(400, 'You must query this endpoint with a secret.');
    const token = await checkSecret(database.db, throttle, request.ip, secret).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 401) throw new ApiError(403, 'Bad secret: it is not in the allowed list');
      throw error;
    });
    // A kiosk token records purchases at the kiosk, nothing else (ledger.md §4).
    if (token.scope === 'kiosk') throw new ApiError(403, 'Bad secret: it is not in the allowed list');
    const open = field('open');
    if (open === undefined) throw new ApiError(400, 'Parameter open is required');
    if (open !== '0' && open !== '1') throw new ApiError(400, 'Did not understand open: expected 0 or 1');
    const nowUs = Date.now() * 1000;
    await reportDoor(
      writes,
      { isOpen: open === '1' },
      {
        timeUs: nowUs,
        tokenId: token.id,
        tokenName: token.name,
        method: 'POST',
        path: '/space/change_status',
        collection: 'space/openings',
        status: 200,
      },
    );
    return sendJson(reply.code(200), { open: Number(open) });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return sendJson(reply.code(error.status).headers(error.headers), { error: services.drfText(error.detail) });
  }
}

/**
 * The original read Django's request.POST, which multipart bodies fill too (`curl -F`, Python
 * requests with `files=`): accepted here, on this route only; text fields only.
 */
async function legacyBody(contentType: string | undefined, body: Buffer | undefined): Promise<RequestData> {
  if (!contentType?.toLowerCase().trimStart().startsWith('multipart/form-data') || body === undefined) return parseBody(contentType, body);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new ApiError(400, 'Malformed multipart body');
  }
  const fields = new Map<string, string[]>();
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') continue;
    fields.set(name, [...(fields.get(name) ?? []), value]);
  }
  return { kind: 'form', fields };
}
