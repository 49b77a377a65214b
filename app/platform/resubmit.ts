/**
 * What a page that offers a form again knows (the CSRF refusal, the busy
 * database): a field as it was typed, a secret one (a password) left blank.
 */
export type KeptField = { name: string; value: string; secret: boolean };
