/**
 * How the console's page and server carry the session (decision 0127): the key the page holds
 * arrives once in the URL fragment after sign-in, then goes in a header on every API request;
 * an icon's URL carries the icon key. Shared by the server's guard and the page (no imports).
 */

/** The fragment parameter the sign-in redirect hands the page its key in (`/#olmv1-session=KEY`). */
export const PAGE_KEY_FRAGMENT = 'olmv1-session';
/** The request header every API request carries the page's key in. */
export const PAGE_KEY_HEADER = 'x-olmv1-session';
/** The query parameter of an icon's URL (an `<img>` cannot send a header). */
export const ICON_KEY_PARAM = 'k';
