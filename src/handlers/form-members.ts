import type { FastifyReply } from 'fastify';
import type { Db } from '../db/connection.js';
import type { Exchange, Route, RoutePath } from '../http/route.js';
import type { Form, FormLists } from '../request/form.js';
import type { Site } from '../web/layout.js';
import type { MemberChoice } from '../web/record-forms.js';

/** What a form's handler is given, as the members' app's page for members only hands it (the request checked, its form read). */
export interface FormExchange<P = unknown> {
  readonly ex: Exchange<P>;
  /** The member who sends it: never null, the page being for members only. */
  readonly viewer: { readonly member: { readonly id: number; readonly username: string } } | null;
  /** The site with this request's navigation. */
  readonly site: Site;
  /** The CSRF token of the page's forms. */
  readonly csrf: string;
  /** The fields of a POST (Origin, UTF-8 and CSRF token checked); empty for a GET. */
  readonly form: Form;
  /** The same fields with every value of each. */
  readonly lists: FormLists;
  readonly nowUs: number;
}

/** A form's page, GET and POST, for members only. */
export interface FormPage<P> {
  name: string;
  template: string;
  match: (path: RoutePath) => P | null;
  methods: readonly ('GET' | 'POST')[];
  handle: (m: FormExchange<P>) => Promise<FastifyReply>;
}

/** What the forms take of the app that keeps the members (apps/users/handlers/form-members.ts). */
export interface FormMembers {
  /** A page for members only: a visitor sent to log in, the Origin, form and CSRF token checked before `handle`. */
  page<P>(declaration: FormPage<P>): Route;
  /** Active members whose username contains `query`, a few at a time, and whether there are more. */
  find(db: Db, query: string): Promise<{ matches: MemberChoice[]; more: boolean }>;
  /** The members among `ids` (those that exist), in the order given. */
  byId(db: Db, ids: readonly number[]): Promise<MemberChoice[]>;
}
