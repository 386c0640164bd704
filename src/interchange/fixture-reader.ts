import fs from 'node:fs';
import { TextDecoder } from 'node:util';
import { ImportError } from './import-error.js';
import { JsonArraySplitter, positionWithin, syntaxError, type ElementRun } from './json-array-splitter.js';

/** Large reads: fewer chunks means fewer trips through the async iterator machinery. */
const READ_SIZE = 1 << 20;

export interface ReadFixtureOptions {
  /** Bytes per read; small values exercise chunk boundaries in tests. */
  readSize?: number;
}

/**
 * Streams a fixture file (a JSON array) as records, one element at a time, so memory stays
 * bounded by the largest record rather than the file. Malformed JSON and invalid UTF-8 end the
 * iteration with an ImportError that gives the position.
 */
export async function* readFixture(path: string, options: ReadFixtureOptions = {}): AsyncGenerator<unknown, void, undefined> {
  const readSize = options.readSize ?? READ_SIZE;
  const splitter = new JsonArraySplitter();
  // fatal: a fixture is UTF-8, and silently replacing bytes would import altered text.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytesRead = 0;
  for await (const chunk of fs.createReadStream(path, { highWaterMark: readSize })) {
    const text = decode(decoder, chunk as Buffer, bytesRead);
    bytesRead += (chunk as Buffer).length;
    for (const run of splitter.push(text)) yield* parseRun(run);
    splitter.throwIfFailed();
  }
  for (const run of splitter.push(decode(decoder, undefined, bytesRead))) yield* parseRun(run);
  splitter.end();
}

function decode(decoder: TextDecoder, chunk: Buffer | undefined, bytesRead: number): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    const where = chunk === undefined ? 'at its end' : `between bytes ${bytesRead} and ${bytesRead + chunk.length}`;
    throw new ImportError(`the file is not valid UTF-8 (${where})`);
  }
}

/**
 * All the elements of a run in one JSON.parse (cheaper than one call per element); on failure,
 * element by element to find the first bad one and place the error in the file.
 */
export function* parseRun(run: ElementRun): Generator<unknown, void, undefined> {
  let elements: unknown[] | null = null;
  try {
    elements = JSON.parse(`[${run.text}]`) as unknown[];
  } catch {
    // The records before the bad one still come first, so that errors are met in file order.
    for (let i = 0; i < run.starts.length; i++) yield parseElement(run, run.starts[i], run.starts[i + 1] ?? run.text.length);
  }
  if (elements) yield* elements;
}

function parseElement(run: ElementRun, start: number, end: number): unknown {
  // The text up to the next element's start holds a trailing comma: cut it off.
  const text = run.text.slice(start, end).replace(/[\s,]+$/, '');
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    const relative = start + (at ? Number(at[1]) : text.length);
    const reason = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+/, '')
      .replace(/^Unexpected end of JSON input$/, 'unexpected end of the element');
    throw syntaxError(reason, positionWithin(run.text, run.position, relative));
  }
}
