/** Field-level validation failures, in DRF's shape: field name → messages. */
export type FieldMessages = Record<string, string[]>;

export class FieldErrors extends Error {
  override name = 'FieldErrors';
  constructor(readonly errors: FieldMessages) {
    super(`invalid fields: ${Object.keys(errors).join(', ')}`);
  }
}

/** A write that would leave a reference dangling (deleting a user who still maintains a project…). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}

export const DOES_NOT_EXIST = 'Invalid hyperlink - Object does not exist.';

/** Throws the collected errors, if any. */
export function throwIfAny(errors: FieldMessages): void {
  if (Object.keys(errors).length > 0) throw new FieldErrors(errors);
}
