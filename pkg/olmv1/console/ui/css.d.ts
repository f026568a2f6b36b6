/** Stylesheets the bundler takes in (esbuild); nothing to type. */
declare module '*.css';
