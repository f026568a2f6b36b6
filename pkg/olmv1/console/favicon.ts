/** The console's icon, served at `/favicon.ico` (issue 71: every page logged its 404): the OLM "o" in the masthead's blue, as SVG. */
import type { ServerResponse } from 'node:http';

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="6" fill="#0066cc"/><circle cx="16" cy="16" r="8" fill="none" stroke="#fff" stroke-width="4"/></svg>';

/** Answers a request for the icon. */
export function sendFavicon(res: ServerResponse): void {
  res.statusCode = 200;
  res.setHeader('content-type', 'image/svg+xml');
  res.setHeader('cache-control', 'private, max-age=86400');
  res.end(FAVICON);
}
