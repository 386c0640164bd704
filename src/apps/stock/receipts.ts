import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.js';

/**
 * Receipts (ledger.md §1): files a treasurer uploads with a payment or a refund, PDF, JPEG or PNG
 * only, recognised by their first bytes (never by the name or the Content-Type the browser
 * gives), at most RECEIPT_MAX_MB. They are kept in the database (`stock_receipts`: every process
 * serves them, backups hold them) under a path like the original's `upload_to="souches"`
 * (`souches/<random>.pdf`), which payments and refunds name in their `receipt`, and served only to
 * the treasury. Free of HTTP.
 */

export type ReceiptType = 'application/pdf' | 'image/jpeg' | 'image/png';

const EXTENSIONS: Readonly<Record<ReceiptType, string>> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/** What a file is, from its first bytes: a PDF (`%PDF-`), a PNG (its 8-byte signature) or a JPEG (`FF D8 FF`); null for anything else. */
export function receiptTypeOf(bytes: Uint8Array): ReceiptType | null {
  const starts = (signature: readonly number[]) => bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  return null;
}

/** Why a receipt is refused: a message of the catalogue each (`stock.treasury.receipt.<code>`). */
export type ReceiptProblem = 'type' | 'too-large';

/** A receipt's path as payments name it: `souches/` then 22 random base64url characters and the type's extension. */
const PATH = /^souches\/[A-Za-z0-9_-]{22}\.(?:pdf|jpg|png)$/;

/** Checks an uploaded file: its path once stored, or the problem. Stores nothing. */
export function checkReceipt(bytes: Uint8Array, maxBytes: number): { type: ReceiptType } | { problem: ReceiptProblem } {
  if (bytes.length > maxBytes) return { problem: 'too-large' };
  const type = receiptTypeOf(bytes);
  return type === null ? { problem: 'type' } : { type };
}

/** Stores a checked receipt in the transaction; its path. */
export async function storeReceipt(trx: Db, bytes: Uint8Array, type: ReceiptType, nowUs: number): Promise<string> {
  const path = `souches/${randomBytes(16).toString('base64url')}.${EXTENSIONS[type]}`;
  await trx.insertInto('stock_receipts').values({ path, media_type: type, content: bytes, size: bytes.length, created_us: nowUs }).execute();
  return path;
}

/** A stored receipt by its path; undefined when there is none (or the path is not one of ours). */
export async function receiptAt(db: Db, path: string): Promise<{ path: string; media_type: string; content: Uint8Array } | undefined> {
  if (!PATH.test(path)) return undefined;
  const row = await db.selectFrom('stock_receipts').select(['path', 'media_type', 'content']).where('path', '=', path).executeTakeFirst();
  return row;
}

/** The address a receipt is served at (to the treasury only). */
export function receiptUrl(path: string): string {
  return `/stock/receipts/${path}`;
}

/** An uploaded file, as a multipart form carries it. */
export interface UploadedFile {
  readonly filename: string;
  readonly bytes: Uint8Array;
}

/** A multipart form's text fields (first value of each) and files (first of each name, empty ones left out). */
export interface MultipartForm {
  readonly fields: Map<string, string>;
  readonly files: Map<string, UploadedFile>;
}

/** Whether a Content-Type is `multipart/form-data`. */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';', 1)[0].trim().toLowerCase() === 'multipart/form-data';
}

/**
 * Reads a `multipart/form-data` body (already bounded by the body limit) with Node's own fetch
 * implementation (undici's `Response.formData`, as the legacy door route does): a body that is
 * malformed or cut short is null, never an exception.
 */
export async function parseMultipart(body: Buffer, contentType: string): Promise<MultipartForm | null> {
  let data: FormData;
  try {
    data = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return null;
  }
  const fields = new Map<string, string>();
  const files = new Map<string, UploadedFile>();
  for (const [name, value] of data.entries()) {
    if (typeof value === 'string') {
      if (!fields.has(name)) fields.set(name, value);
    } else if (!files.has(name) && value.size > 0) {
      files.set(name, { filename: value.name, bytes: new Uint8Array(await value.arrayBuffer()) });
    }
  }
  return { fields, files };
}
