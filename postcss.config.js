/**
 * Remix's classic compiler runs this on every CSS file it bundles (`postcss: true` in
 * remix.config.js): Tailwind CSS 4 builds app/tailwind.css.
 */
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
