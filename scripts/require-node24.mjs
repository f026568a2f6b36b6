// Fails fast when npm scripts run on a Node.js other than 24: the project's devDependency
// `node` puts Node 24 first on PATH for every npm script, so reaching this with another
// major means `npm ci` did not complete.
const major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  process.stderr.write(`olmv1 requires Node.js 24 (found ${process.version}); run "npm ci" first\n`);
  process.exit(1);
}
