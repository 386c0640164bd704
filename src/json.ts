/** Compact JSON, U+2028/U+2029 escaped as DRF's renderer does: every JSON body we send. */
export function json(body: unknown): Buffer {
  let text = JSON.stringify(body);
  if (/[\u2028\u2029]/.test(text)) text = text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return Buffer.from(text);
}
