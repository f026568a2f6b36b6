/**
 * Catalog content for the console's browser tests (test/e2e/console.test.ts): a hostile package
 * whose every text field carries an XSS payload, with a scripted SVG icon and javascript:/data:
 * links, and a generated catalog of many packages with varied facets for search, filters and paging.
 */

/** Payloads that would run script if any of them were rendered as HTML or followed as a URL. */
export const XSS = {
  displayName: '<img src=x onerror=alert("displayName")>',
  provider: '<script>alert("provider")</script>',
  short: '<svg onload=alert("short")></svg>',
  markdown: [
    '# Hostile <script>alert("md-script")</script>',
    '',
    '<img src=x onerror=alert("md-img")> raw HTML stays text.',
    '',
    '[click me](javascript:alert("md-link")) and [data](data:text/html,<script>alert(1)</script>)',
    '',
    '![remote](http://evil.invalid/pixel.png)',
    '',
    '<a href="javascript:alert(\'md-a\')">anchor</a>',
  ].join('\n'),
  category: '<b onmouseover=alert("category")>Cat</b>',
  keyword: '"><script>alert("keyword")</script>',
};

/** An SVG icon that runs script if rendered as a document or inlined. */
const SCRIPTED_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(\'svg-onload\')" viewBox="0 0 10 10"><script>alert("svg-script")</script>' +
  '<image href="http://evil.invalid/x.png" width="10" height="10"/><rect width="10" height="10" fill="red"/></svg>';

function doc(o: object): string {
  return JSON.stringify(o);
}

/** The hostile catalog: package `xss-pkg` (scripted SVG icon) and `xss-html-icon` (an HTML "icon"). */
export function hostileCatalog(): Record<string, string> {
  const docs: string[] = [];
  for (const [name, icon] of [
    ['xss-pkg', { mediatype: 'image/svg+xml', base64data: Buffer.from(SCRIPTED_SVG).toString('base64') }],
    ['xss-html-icon', { mediatype: 'text/html', base64data: Buffer.from('<script>alert("html-icon")</script>').toString('base64') }],
  ] as const) {
    docs.push(doc({ schema: 'olm.package', name, defaultChannel: 'stable', description: XSS.markdown, icon }));
    docs.push(doc({ schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] }));
    docs.push(
      doc({
        schema: 'olm.bundle',
        package: name,
        name: `${name}.v1.0.0`,
        image: `registry.test/${name}-bundle:v1.0.0`,
        properties: [
          { type: 'olm.package', value: { packageName: name, version: '1.0.0' } },
          {
            type: 'olm.csv.metadata',
            value: {
              displayName: `${XSS.displayName} ${name}`,
              description: XSS.markdown,
              provider: { name: XSS.provider, url: 'javascript:alert("provider-url")' },
              keywords: [XSS.keyword],
              links: [
                { name: 'js link', url: 'javascript:alert("link")' },
                { name: 'data link', url: 'data:text/html,<script>alert("data")</script>' },
                { name: 'safe link', url: 'https://example.com/docs' },
              ],
              maintainers: [{ name: XSS.displayName, email: XSS.provider }],
              installModes: [{ type: 'AllNamespaces', supported: true }],
              annotations: { categories: XSS.category, capabilities: XSS.short, description: XSS.short },
            },
          },
        ],
      }),
    );
  }
  return { 'hostile/catalog.json': docs.join('\n') };
}

const CATEGORIES = ['Database', 'Monitoring', 'Networking', 'Security', 'Storage'];
const PROVIDERS = ['Acme Corp', 'Globex', 'Initech'];
const LEVELS = ['Basic Install', 'Seamless Upgrades', 'Full Lifecycle', 'Deep Insights', 'Auto Pilot'];

/** `n` packages `many-NN` with two versions each and facets cycling through fixed values. */
export function manyCatalog(n: number): Record<string, string> {
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `many-${String(i).padStart(2, '0')}`;
    docs.push(doc({ schema: 'olm.package', name, defaultChannel: 'stable', description: `Generated package ${i}.` }));
    docs.push(
      doc({
        schema: 'olm.channel',
        package: name,
        name: 'stable',
        entries: [{ name: `${name}.v1.0.0` }, { name: `${name}.v1.1.0`, replaces: `${name}.v1.0.0` }],
      }),
    );
    for (const v of ['1.0.0', '1.1.0']) {
      docs.push(
        doc({
          schema: 'olm.bundle',
          package: name,
          name: `${name}.v${v}`,
          image: `registry.test/${name}-bundle:v${v}`,
          properties: [
            { type: 'olm.package', value: { packageName: name, version: v } },
            {
              type: 'olm.csv.metadata',
              value: {
                displayName: `Many ${CATEGORIES[i % 5]} ${i}`,
                description: `Generated package ${i} for the hub.`,
                provider: { name: PROVIDERS[i % 3] },
                installModes: [
                  { type: 'AllNamespaces', supported: i % 2 === 0 },
                  { type: 'OwnNamespace', supported: true },
                ],
                annotations: {
                  categories: CATEGORIES[i % 5],
                  capabilities: LEVELS[i % 5],
                  ...(i % 4 === 0 ? { 'features.operators.openshift.io/disconnected': 'true' } : {}),
                },
              },
            },
          ],
        }),
      );
    }
  }
  return { 'many/catalog.json': docs.join('\n') };
}
