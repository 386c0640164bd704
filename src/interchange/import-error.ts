/** Where in a fixture file something went wrong (1-based line and column, 0-based character offset). */
export interface FilePosition {
  line: number;
  column: number;
  offset: number;
}

export interface ImportErrorDetails {
  model?: string;
  pk?: unknown;
  field?: string;
  position?: FilePosition;
}

/**
 * Why an import was refused. The message is complete on its own (it names the model, the pk and
 * the field, or the position in the file) because the CLI prints nothing else.
 */
export class ImportError extends Error {
  override name = 'ImportError';
  readonly model?: string;
  readonly pk?: unknown;
  readonly field?: string;
  readonly position?: FilePosition;

  constructor(message: string, details: ImportErrorDetails = {}) {
    super(message);
    this.model = details.model;
    this.pk = details.pk;
    this.field = details.field;
    this.position = details.position;
  }
}

/** A field's value is unusable; the importer adds the model and pk. */
export class FieldError extends Error {
  override name = 'FieldError';

  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(reason);
  }
}

/** `events.event pk 3` — how every record-level message starts. */
export function recordLabel(model: string, pk: unknown): string {
  return `${model} pk ${pk === undefined ? 'undefined' : show(pk)}`;
}

/** A value for a message: JSON, shortened, since it may come from a hostile or broken file. */
export function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function recordError(model: string, pk: unknown, reason: string, field?: string): ImportError {
  const where = field === undefined ? '' : ` field "${field}":`;
  return new ImportError(`${recordLabel(model, pk)}:${where} ${reason}`, { model, pk, field });
}
