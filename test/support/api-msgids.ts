/**
 * Every msgid of DRF 3.16 and Django 4.2 that the API's answers use (src/drf/, src/resources/,
 * src/http/, the apps' writes): src/drf/locale/*.json must translate exactly these, as Debian's
 * catalogues do (test/api-messages.test.ts).
 */
export const API_MSGIDS: readonly string[] = [
  // rest_framework/exceptions.py
  'Not found.',
  'Authentication credentials were not provided.',
  'You do not have permission to perform this action.',
  'Method "{method}" not allowed.',
  'Could not satisfy the request Accept header.',
  'Unsupported media type "{media_type}" in request.',
  'Request was throttled.',
  'Expected available in {wait} second.',
  'Expected available in {wait} seconds.',
  // rest_framework/pagination.py
  'Invalid page.',
  // rest_framework/authentication.py
  'Invalid token header. No credentials provided.',
  'Invalid token header. Token string should not contain spaces.',
  'Invalid token.',
  // rest_framework/fields.py
  'This field is required.',
  'This field may not be null.',
  'Not a valid string.',
  'This field may not be blank.',
  'Ensure this field has no more than {max_length} characters.',
  'Enter a valid email address.',
  'Enter a valid URL.',
  'A valid integer is required.',
  'Ensure this value is less than or equal to {max_value}.',
  'Ensure this value is greater than or equal to {min_value}.',
  'Must be a valid boolean.',
  '"{input}" is not a valid choice.',
  'Datetime has wrong format. Use one of these formats instead: {format}.',
  // rest_framework/relations.py
  'Incorrect type. Expected URL string, received {data_type}.',
  'Invalid hyperlink - No URL match.',
  'Invalid hyperlink - Incorrect URL match.',
  'Invalid hyperlink - Object does not exist.',
  'Expected a list of items but got type "{input_type}".',
  // rest_framework/serializers.py
  'Invalid data. Expected a dictionary, but got {datatype}.',
  // django/core/validators.py (ProhibitNullCharactersValidator, which DRF's CharField adds)
  'Null characters are not allowed.',
  // django/contrib/auth/models.py (AbstractUser.username's unique message, DRF's UniqueValidator)
  'A user with that username already exists.',
];
