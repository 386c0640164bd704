import type { FastifyReply } from 'fastify';
import { memberPage, type MemberExchange } from '../handlers/member-pages.js';
import { seeOther } from '../../../http/reply.js';
import { loginUrl } from '../../../request/next-path.js';
import { submitInterest, submitJoin, submitLeave } from '../handlers/taking-part.js';
import { idPath, type Route, type RoutePath } from '../../../http/route.js';

/** `/<kind>/<id>/<action>/`: the record's id. */
function recordAction(kind: string, action: string): (path: RoutePath) => number | null {
  return idPath(new RegExp(`^/${kind}/([0-9]{1,18})/${action}/$`));
}

/** A visitor (or a session that ended) is sent to log in, then back to the record's page, where the button is: not to this POST-only address. */
function logInThenRecord(kind: string): (m: MemberExchange<number>) => Promise<FastifyReply> {
  return async (m) => seeOther(m.ex.reply, loginUrl(`/${kind}/${m.ex.params}/`));
}

const ACTIONS = {
  projects: [
    ['project join', 'join', submitJoin],
    ['project leave', 'leave', submitLeave],
  ],
  events: [['event interest', 'interested', submitInterest]],
} as const;

/** Taking part in a record of `kind` from its page (members.md §4): POST only, for any active member. */
export function takingPartRoutes(kind: keyof typeof ACTIONS): Route[] {
  return ACTIONS[kind].map(([name, action, handle]) =>
    memberPage({
      name,
      template: `/${kind}/{id}/${action}/`,
      match: recordAction(kind, action),
      methods: ['POST'],
      requires: 'member',
      visitor: logInThenRecord(kind),
      handle,
    }),
  );
}
