import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/connection.js';
import { joinProject, leaveProject, setInterest, type TakingPart } from '../taking-part.js';
import { field } from '../../../request/form.js';
import type { UsersNotice as Notice } from '../notices.js';
import { notFound, webWrite, type MemberExchange } from './member-pages.js';
import { seeOther } from '../../../http/reply.js';
import { setNotice } from '../../../handlers/notice.js';

/**
 * Joining and leaving a project, and saying one is interested in an event (members.md §3, §4):
 * POSTs from the record's page, for any active member (memberPage has checked the session, the
 * Origin and the CSRF token). Each change is an announced write with its audit entry; then 303
 * back to the record's page, which says what was done (a notice, handlers/notice.ts).
 */

type Kind = 'projects' | 'events';

async function takePart(m: MemberExchange<number>, kind: Kind, done: () => Notice, work: (trx: Db, userId: number, id: number) => Promise<TakingPart>): Promise<FastifyReply> {
  const id = m.ex.params;
  const result = await webWrite(m, async (trx, audit) => {
    const result = await work(trx, m.viewer!.member.id, id);
    if (result === 'changed') await audit({ collection: kind, recordId: id, status: 303 });
    return result;
  });
  if (result === 'unknown') return notFound(m);
  setNotice(m.ex.reply, m.ex.facts, done());
  return seeOther(m.ex.reply, `/${kind}/${id}/`);
}

/** POST /projects/<id>/join/ */
export function submitJoin(m: MemberExchange<number>): Promise<FastifyReply> {
  return takePart(m, 'projects', () => 'joined', joinProject);
}

/** POST /projects/<id>/leave/ */
export function submitLeave(m: MemberExchange<number>): Promise<FastifyReply> {
  return takePart(m, 'projects', () => 'left', leaveProject);
}

/**
 * POST /events/<id>/interested/: the form says which state it wants (`interested` = `yes` or
 * `no`, so that a form posted twice does not undo itself); without it, a toggle.
 */
export function submitInterest(m: MemberExchange<number>): Promise<FastifyReply> {
  const typed = field(m.form, 'interested');
  const wanted = typed === 'yes' ? true : typed === 'no' ? false : null;
  let interested = false;
  return takePart(
    m,
    'events',
    () => (interested ? 'interested' : 'not-interested'),
    async (trx, userId, id) => {
      const set = await setInterest(trx, userId, id, wanted);
      interested = set.interested;
      return set.result;
    },
  );
}
