import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { hasRight } from '../users/index.js';

/**
 * The treasury (ledger.md §1, §4): the space's fund zones (a cash box, a bank account) with their
 * estimated balances, the payments in and out of them, the refunds the space owes members, and
 * what members owe and are owed. Free of HTTP; every change runs in a write transaction the
 * caller owns. "The treasury" is the members holding `stock.view_paymenttransaction` (the
 * original's "Trésorerie" group) and the superusers.
 */

/** Whether a member is of the treasury. */
export function isTreasurer(db: Db, userId: number): Promise<boolean> {
  return hasRight(db, userId, 'stock.view_paymenttransaction');
}

/** A fund zone's way money is kept (the original's FundZone.payment_method). */
export const ZONE_METHODS = ['BANK', 'CASH'] as const;
export type ZoneMethod = (typeof ZONE_METHODS)[number];
/** A payment's way: `a` an expense out of the zone, `b` a receipt into it (the original's PaymentTransaction.ways). */
export const PAYMENT_WAYS = ['a', 'b'] as const;
export type PaymentWay = (typeof PAYMENT_WAYS)[number];

/** The original's field lengths. */
export const MAX_ZONE_NAME = 50;
export const MAX_COMMENTS = 200;
export const MAX_REFUND_TITLE = 200;

export interface PaymentRow {
  id: number;
  username: string;
  amount_cents: number;
  way: string;
  receipt: string | null;
  comments: string | null;
  payment_date: string;
  when_us: number;
}

export interface ZoneSummary {
  id: number;
  name: string;
  method: string;
  /** The original's FundZone.balance: receipts − expenses of the zone + every top-up of the zone's method. */
  balanceCents: number;
  payments: PaymentRow[];
}

/**
 * Every fund zone by name (the original's page orders them so), each with its estimated balance
 * and its payments, newest payment date first. The balance is the original's FundZone.balance:
 * the zone's receipts (`b`) less its expenses (`a`), plus every member's top-up of the zone's
 * method (`BANK` or `CASH`: the original's `topup_type`), whichever zone it went to. A top-up
 * undone or corrected is money that did not come in: its reversal counts against it.
 */
export async function zoneSummaries(db: Db): Promise<ZoneSummary[]> {
  const zones = await db.selectFrom('stock_fund_zones').select(['id', 'name', 'method']).orderBy('name').orderBy('id').execute();
  if (zones.length === 0) return [];
  const [payments, topups] = await Promise.all([
    db
      .selectFrom('stock_payments as p')
      .innerJoin('users as u', 'u.id', 'p.user_id')
      .select(['p.id', 'p.zone_id', 'u.username', 'p.amount_cents', 'p.way', 'p.receipt', 'p.comments', 'p.payment_date', 'p.when_us'])
      .where('p.zone_id', 'is not', null)
      .orderBy('p.payment_date', 'desc')
      .orderBy('p.id', 'desc')
      .execute(),
    topupsByMethod(db),
  ]);
  return zones.map((zone) => {
    const own = payments.filter((p) => p.zone_id === zone.id);
    const moved = own.reduce((sum, p) => sum + (p.way === 'a' ? -p.amount_cents : p.amount_cents), 0);
    return { ...zone, balanceCents: moved + (topups.get(zone.method) ?? 0), payments: own };
  });
}

/** The sum of the members' top-ups by their way in (BANK, CASH), less those reversed. */
async function topupsByMethod(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .leftJoin('ledger_entries as r', 'r.id', 'e.reverses_id')
    .select([sql<string>`coalesce(e.location, r.location)`.as('location'), sql<number>`cast(sum(e.amount_cents) as bigint)`.as('total')])
    .where((eb) => eb.or([eb('e.kind', '=', 'topup'), eb.and([eb('e.reverses_id', 'is not', null), eb('r.kind', '=', 'topup')])]))
    .groupBy(sql`coalesce(e.location, r.location)`)
    .execute();
  return new Map(rows.map((row) => [row.location, Number(row.total)]));
}

export interface MemberBalance {
  id: number;
  username: string;
  balanceCents: number;
}

/** Every member whose balance is not zero, lowest first; and the totals owed by members (their debts) and to them. */
export async function memberBalances(db: Db): Promise<{ members: MemberBalance[]; owedByMembersCents: number; owedToMembersCents: number }> {
  const rows = await db.selectFrom('users').select(['id', 'username', 'balance_cents']).where('balance_cents', '!=', 0).orderBy('balance_cents').orderBy('username').execute();
  const members = rows.map((row) => ({ id: row.id, username: row.username, balanceCents: Number(row.balance_cents) }));
  return {
    members,
    owedByMembersCents: -members.filter((m) => m.balanceCents < 0).reduce((sum, m) => sum + m.balanceCents, 0),
    owedToMembersCents: members.filter((m) => m.balanceCents > 0).reduce((sum, m) => sum + m.balanceCents, 0),
  };
}

export interface RefundRow {
  id: number;
  username: string;
  title: string;
  amount_cents: number;
  receipt: string | null;
  when_us: number;
}

/** The refunds not yet completed by a payment, oldest first. */
export function openRefunds(db: Db): Promise<RefundRow[]> {
  return db
    .selectFrom('stock_refunds as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'u.username', 'r.title', 'r.amount_cents', 'r.receipt', 'r.when_us'])
    .where('r.payment_id', 'is', null)
    .orderBy('r.when_us')
    .orderBy('r.id')
    .execute();
}

/** The active members, by username: a refund's beneficiary is chosen among them. */
export function activeMembers(db: Db): Promise<{ id: number; username: string }[]> {
  return db.selectFrom('users').select(['id', 'username']).where('is_active', '=', 1).orderBy('username').execute();
}

export function fundZones(db: Db): Promise<{ id: number; name: string; method: string }[]> {
  return db.selectFrom('stock_fund_zones').select(['id', 'name', 'method']).orderBy('name').orderBy('id').execute();
}

/** Why the treasury refuses a change: each is a message of the catalogue (`stock.treasury.refused.<code>`). */
export type TreasuryRefusal = 'zone-name' | 'zone-method' | 'zone-unknown' | 'way' | 'date' | 'comments' | 'title' | 'member-unknown' | 'refund-unknown' | 'refund-done';

export class TreasuryRefused extends Error {
  override name = 'TreasuryRefused';
  constructor(
    readonly refusal: TreasuryRefusal,
    readonly field: string,
  ) {
    super(refusal);
  }
}

export async function addZone(trx: Db, zone: { name: string; method: string }): Promise<number> {
  const name = zone.name.trim();
  if (name === '' || [...name].length > MAX_ZONE_NAME) throw new TreasuryRefused('zone-name', 'name');
  if (!(ZONE_METHODS as readonly string[]).includes(zone.method)) throw new TreasuryRefused('zone-method', 'method');
  const row = await trx.insertInto('stock_fund_zones').values({ name, method: zone.method }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** A day as a form sends it (`2026-12-02`), checked to be a real day; null otherwise. */
export function readDay(text: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (m === null) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3]) ? m[0] : null;
}

export interface NewPayment {
  zoneId: number;
  way: string;
  amountCents: number;
  paymentDate: string;
  comments: string;
  receipt: string | null;
  byUserId: number;
  nowUs: number;
}

/** A payment out of (`a`) or into (`b`) a zone, recorded by a treasurer. */
export async function recordPayment(trx: Db, payment: NewPayment): Promise<number> {
  if (!(PAYMENT_WAYS as readonly string[]).includes(payment.way)) throw new TreasuryRefused('way', 'way');
  const day = readDay(payment.paymentDate);
  if (day === null) throw new TreasuryRefused('date', 'payment_date');
  if ([...payment.comments].length > MAX_COMMENTS) throw new TreasuryRefused('comments', 'comments');
  const zone = await trx.selectFrom('stock_fund_zones').select('id').where('id', '=', payment.zoneId).executeTakeFirst();
  if (zone === undefined) throw new TreasuryRefused('zone-unknown', 'zone');
  const row = await trx
    .insertInto('stock_payments')
    .values({
      user_id: payment.byUserId,
      when_us: payment.nowUs,
      amount_cents: payment.amountCents,
      way: payment.way,
      receipt: payment.receipt,
      zone_id: zone.id,
      comments: payment.comments.trim() === '' ? null : payment.comments.trim(),
      payment_date: day,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A refund the space owes a member (the original's RefundTransaction: its `user` is the member refunded). */
export async function recordRefund(trx: Db, refund: { userId: number; title: string; amountCents: number; receipt: string | null; nowUs: number }): Promise<number> {
  const title = refund.title.trim();
  if (title === '' || [...title].length > MAX_REFUND_TITLE) throw new TreasuryRefused('title', 'title');
  const member = await trx.selectFrom('users').select('id').where('id', '=', refund.userId).executeTakeFirst();
  if (member === undefined) throw new TreasuryRefused('member-unknown', 'member');
  const row = await trx
    .insertInto('stock_refunds')
    .values({ user_id: member.id, when_us: refund.nowUs, title, amount_cents: refund.amountCents, payment_id: null, receipt: refund.receipt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Completes a refund by a payment out of a zone, as the original's RefundTransaction.refund: an
 * expense (`a`) of the refund's amount, with its receipt, recorded by the treasurer, commented
 * `comments(title, username)` (the original's "Remboursement '<title>' à <username>", in the
 * space's language), dated today in the space's zone.
 */
export async function completeRefund(
  trx: Db,
  change: { refundId: number; zoneId: number; byUserId: number; nowUs: number; today: string; comments: (title: string, username: string) => string },
): Promise<number> {
  const refund = await trx
    .selectFrom('stock_refunds as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(['r.id', 'r.title', 'r.amount_cents', 'r.payment_id', 'r.receipt', 'u.username'])
    .where('r.id', '=', change.refundId)
    .executeTakeFirst();
  if (refund === undefined) throw new TreasuryRefused('refund-unknown', 'refund');
  if (refund.payment_id !== null) throw new TreasuryRefused('refund-done', 'refund');
  const comments = [...change.comments(refund.title, refund.username)].slice(0, MAX_COMMENTS).join('');
  const paymentId = await recordPayment(trx, {
    zoneId: change.zoneId,
    way: 'a',
    amountCents: refund.amount_cents,
    paymentDate: change.today,
    comments,
    receipt: refund.receipt,
    byUserId: change.byUserId,
    nowUs: change.nowUs,
  });
  // Only a refund still open is completed: two treasurers completing it at once record one payment.
  const done = await trx.updateTable('stock_refunds').set({ payment_id: paymentId }).where('id', '=', refund.id).where('payment_id', 'is', null).executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) throw new TreasuryRefused('refund-done', 'refund');
  return paymentId;
}

/** A ledger entry as the CSV of a period gives it (ledger.md §4). */
export interface LedgerCsvRow {
  id: number;
  created_us: number;
  username: string;
  kind: string;
  amount_cents: number;
  product: string | null;
  unit_price_cents: number | null;
  quantity: number | null;
  location: string | null;
  info: string;
  counterpart: string | null;
  reverses_id: number | null;
  recorded_by: string | null;
  channel: string;
}

/** The entries recorded in [fromUs, toUs), in id order, a batch at a time after `afterId`. */
export function ledgerBatch(db: Db, period: { fromUs: number; toUs: number }, afterId: number, limit: number): Promise<LedgerCsvRow[]> {
  return db
    .selectFrom('ledger_entries as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .leftJoin('stock_products as p', 'p.id', 'e.product_id')
    .leftJoin('users as c', 'c.id', 'e.counterpart_id')
    .leftJoin('users as b', 'b.id', 'e.recorded_by')
    .select([
      'e.id',
      'e.created_us',
      'u.username',
      'e.kind',
      'e.amount_cents',
      'p.name as product',
      'e.unit_price_cents',
      'e.quantity',
      'e.location',
      'e.info',
      'c.username as counterpart',
      'e.reverses_id',
      'b.username as recorded_by',
      'e.channel',
    ])
    .where('e.created_us', '>=', period.fromUs)
    .where('e.created_us', '<', period.toUs)
    .where('e.id', '>', afterId)
    .orderBy('e.id')
    .limit(limit)
    .execute();
}
