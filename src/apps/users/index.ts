/** What other apps may use of the members' app: its one public module. */
export { memberPage, notFound, webWrite, type MemberExchange } from './handlers/member-pages.js';
export { Mailer, MailNotSent } from './mail.js';
export { FORM_MEMBERS } from './handlers/form-members.js';
export { takingPartRoutes } from './routes/taking-part.js';
export { relatedUserIds } from './related-users.js';
export { keyHolderNames, userIdByName } from './users.js';
export { newLink } from './web/new-link.js';
export { hasRight, mayAddMeeting, mayEditEvent, mayEditMeeting, mayEditProject, powersOver } from './rights.js';
export { isInterested, isParticipant } from './taking-part.js';
