import type { CachedBodies } from '../cache/cached-bodies.js';
import type { FastReads } from '../cache/fast-path.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import type { MemberTokens } from '../drf/auth.js';
import type { DrfText } from '../drf/messages.js';
import type { FailureThrottle } from '../drf/throttle.js';
import type { AnnouncedWrites } from '../live/writes.js';
import type { RequestReader } from '../request/facts.js';
import type { PagePositions } from '../resources/record-context.js';
import type { TimeFormatter } from '../time.js';
import type { Site } from '../web/layout.js';
import type { Catalogue } from '../i18n/catalogue.js';
import type { MessageKey } from '../i18n/words.js';
import type { Viewing } from './viewing.js';

import type { ApiPathMatch } from '../drf/serializer.js';
/**
 * The app's parts that routes use, made once by buildApp (app.ts) and handed to each request's
 * Exchange. An app adds the parts only its own routes use (module augmentation: apps/space/services.ts).
 */
export interface Services {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly reader: RequestReader;
  readonly fast: FastReads;
  readonly bodies: CachedBodies;
  readonly times: TimeFormatter;
  /** An e-mail address's avatar URL, remembered (drf/links.ts avatarUrls). */
  readonly avatar: (email: string) => string;
  readonly site: Site;
  /** Every language's words (i18n/catalogue.ts): a page's are `catalogue.words(language)`. */
  readonly catalogue: Catalogue;
  /** The words of every form's confirmation, by its code: the site's and the apps' that are on. */
  readonly notices: Readonly<Record<string, MessageKey>>;
  /** The API route a percent-decoded path names, among the apps that are on: hyperlinks in forms' and bodies' fields are read with it. */
  readonly routeOf: ApiPathMatch;
  readonly writes: AnnouncedWrites;
  readonly throttle: FailureThrottle;
  /** The API's messages worded in LANGUAGE_CODE, as DRF and Django word them (drf/messages.ts). */
  readonly drfText: DrfText;
  /** Members' personal tokens, as the API's authentication checks them (apps/users/member-tokens.ts). */
  readonly memberTokens: MemberTokens;
  /** Who looks at a page: the session's member (apps/users); the users app adds its own parts to Services (apps/users/services.ts). */
  readonly viewing: Viewing;
  /** Where deep pages start, kept between requests (the collections' page windows carry them). */
  readonly pagePositions: PagePositions;
  /** The OpenAPI document served at /api/schema/, built on first request. */
  readonly openapi: () => unknown;
  /** One database ping shared by the health checks that overlap: null when it answered in time, else what went wrong. */
  readonly ping: () => Promise<unknown>;
}
