/** JSON text for fixtures, spaced as Python's json.dumps (`{"a": 1, "b": [1, 2]}`), as Django writes. */
export function pythonJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  // Plain loops: this runs for every field of every record.
  let text = '';
  if (Array.isArray(value)) {
    for (const item of value) text += (text ? ', ' : '') + pythonJson(item);
    return `[${text}]`;
  }
  for (const key in value) {
    text += `${text ? ', ' : ''}${JSON.stringify(key)}: ${pythonJson((value as Record<string, unknown>)[key])}`;
  }
  return `{${text}}`;
}

const FLUSH_AT = 1 << 16;

/**
 * Writes a JSON array of records to a stream, one record per line, in chunks, and waits when the
 * stream asks it to (backpressure), so that memory stays constant whatever the size of the data.
 */
export class FixtureWriter {
  private parts: string[] = ['[\n'];
  private size = 2;
  private first = true;
  private failure: Error | null = null;
  private readonly onError = (error: Error) => {
    this.failure ??= error;
  };

  constructor(private readonly out: NodeJS.WritableStream) {
    // Without a listener, an asynchronous write error (EPIPE on a closed pipe) would crash the process.
    out.on('error', this.onError);
  }

  /** Adds one record; returns true when enough text is pending that the caller should flush(). */
  record(model: string, pk: number, fields: Record<string, unknown>): boolean {
    const text = `${this.first ? '' : ',\n'}{"model": "${model}", "pk": ${pk}, "fields": ${pythonJson(fields)}}`;
    this.first = false;
    this.parts.push(text);
    this.size += text.length;
    return this.size >= FLUSH_AT;
  }

  /** Closes the array and flushes; does not end the stream, which belongs to the caller. */
  async finish(): Promise<void> {
    this.parts.push(this.first ? ']\n' : '\n]\n');
    try {
      await this.flush();
    } finally {
      this.out.removeListener('error', this.onError);
    }
  }

  async flush(): Promise<void> {
    this.throwFailure();
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (!this.out.write(text)) await drained(this.out);
    this.throwFailure();
  }

  /** Throws the stream's error, if it had one (set by its listener, at any time). */
  private throwFailure(): void {
    if (this.failure) throw this.failure;
  }
}

function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      out.removeListener('drain', onDrain);
      out.removeListener('error', onError);
      out.removeListener('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(new Error('the output was closed before the export finished'));
    out.once('drain', onDrain);
    out.once('error', onError);
    out.once('close', onClose);
  });
}
