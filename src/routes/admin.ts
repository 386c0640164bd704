import { group, groups, makeMemberLink, memberAccount, removeGroup, revokeOperatorToken, revokePersonalToken, showAdminHome, showMembers, tokens } from '../handlers/admin.js';
import { memberPage } from '../handlers/member-pages.js';
import { fixedPaths, idPath, type Route } from '../http/route.js';

/** The superusers' admin pages (members.md §4, `/accounts/admin/`): a visitor goes to the login page, any other member gets a 403 page. */
export const ADMIN_ROUTES: readonly Route[] = [
  memberPage({
    name: 'admin',
    template: '/accounts/admin/',
    match: fixedPaths('/accounts/admin/'),
    methods: ['GET'],
    requires: 'superuser',
    handle: showAdminHome,
  }),
  memberPage({
    name: 'admin members',
    template: '/accounts/admin/members/',
    match: fixedPaths('/accounts/admin/members/'),
    methods: ['GET'],
    requires: 'superuser',
    handle: showMembers,
  }),
  memberPage({
    name: 'admin member',
    template: '/accounts/admin/members/:id/',
    match: idPath(/^\/accounts\/admin\/members\/([0-9]+)\/$/),
    methods: ['GET', 'POST'],
    requires: 'superuser',
    handle: memberAccount,
  }),
  memberPage({
    name: 'admin member link',
    template: '/accounts/admin/members/:id/link/',
    match: idPath(/^\/accounts\/admin\/members\/([0-9]+)\/link\/$/),
    methods: ['POST'],
    requires: 'superuser',
    handle: makeMemberLink,
  }),
  memberPage({
    name: 'admin groups',
    template: '/accounts/admin/groups/',
    match: fixedPaths('/accounts/admin/groups/'),
    methods: ['GET', 'POST'],
    requires: 'superuser',
    handle: groups,
  }),
  memberPage({
    name: 'admin group',
    template: '/accounts/admin/groups/:id/',
    match: idPath(/^\/accounts\/admin\/groups\/([0-9]+)\/$/),
    methods: ['GET', 'POST'],
    requires: 'superuser',
    handle: group,
  }),
  memberPage({
    name: 'admin group delete',
    template: '/accounts/admin/groups/:id/delete/',
    match: idPath(/^\/accounts\/admin\/groups\/([0-9]+)\/delete\/$/),
    methods: ['POST'],
    requires: 'superuser',
    handle: removeGroup,
  }),
  memberPage({
    name: 'admin tokens',
    template: '/accounts/admin/tokens/',
    match: fixedPaths('/accounts/admin/tokens/'),
    methods: ['GET', 'POST'],
    requires: 'superuser',
    handle: tokens,
  }),
  memberPage({
    name: 'admin token revoke',
    template: '/accounts/admin/tokens/:id/revoke/',
    match: idPath(/^\/accounts\/admin\/tokens\/([0-9]+)\/revoke\/$/),
    methods: ['POST'],
    requires: 'superuser',
    handle: revokeOperatorToken,
  }),
  memberPage({
    name: 'admin member token revoke',
    template: '/accounts/admin/member-tokens/:id/revoke/',
    match: idPath(/^\/accounts\/admin\/member-tokens\/([0-9]+)\/revoke\/$/),
    methods: ['POST'],
    requires: 'superuser',
    handle: revokePersonalToken,
  }),
];
