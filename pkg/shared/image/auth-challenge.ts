/**
 * `WWW-Authenticate` challenges (RFC 7235) as registries send them, e.g.
 * `Bearer realm="https://auth.example/token",service="registry",scope="repository:a/b:pull"`.
 */

/** One challenge: the scheme (lower case) and its auth-params (names lower case). */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * Parses header values into challenges, in order, tolerating extra whitespace, empty elements
 * and unquoted values. Unparseable remainders are ignored: the plain 401 error is reported.
 */
export function parseAuthChallenges(header: string | readonly string[] | undefined): AuthChallenge[] {
  if (header === undefined) return [];
  const values = typeof header === 'string' ? [header] : header;
  const out: AuthChallenge[] = [];
  for (const value of values) out.push(...parseOne(value));
  return out;
}

function parseOne(s: string): AuthChallenge[] {
  const out: AuthChallenge[] = [];
  let i = 0;
  let current: AuthChallenge | undefined;

  const skipWs = (): void => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const readToken = (): string => {
    const start = i;
    while (i < s.length && TOKEN_CHAR.test(s[i] ?? '')) i++;
    return s.slice(start, i);
  };
  const readQuoted = (): string => {
    // s[i] is the opening quote.
    i++;
    let v = '';
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      v += s[i];
      i++;
    }
    i++; // closing quote (or end)
    return v;
  };

  while (i < s.length) {
    skipWs();
    if (s[i] === ',') {
      i++;
      continue;
    }
    const start = i;
    const token = readToken();
    if (token === '') {
      // Not a token: skip one character so parsing always advances.
      i = start + 1;
      continue;
    }
    skipWs();
    if (s[i] === '=' && current !== undefined) {
      i++;
      skipWs();
      const value = s[i] === '"' ? readQuoted() : readToken();
      current.params[token.toLowerCase()] = value;
      continue;
    }
    // A token not followed by "=" starts a new challenge (token68 forms are not used by
    // registries and are skipped).
    current = { scheme: token.toLowerCase(), params: {} };
    out.push(current);
  }
  return out;
}

/** The first challenge with `scheme` (case-insensitive), if any. */
export function findChallenge(challenges: readonly AuthChallenge[], scheme: string): AuthChallenge | undefined {
  const wanted = scheme.toLowerCase();
  return challenges.find((c) => c.scheme === wanted);
}
