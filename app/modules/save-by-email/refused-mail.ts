/** How far back the folder page looks for mail its address did not save (refused-mail.server.ts). */
export const REFUSED_MAIL_DAYS = 7;
