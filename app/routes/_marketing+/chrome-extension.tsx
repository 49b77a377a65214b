import { json, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Bookmarklet } from "~/components/capture/bookmarklet";
import { StaticPage } from "~/components/layout/public-layout";
import { env } from "~/platform/env.server";

export const meta: MetaFunction = () => [
  { title: "Chrome Extension · Thoughtfully" },
  {
    name: "description",
    content:
      "Save the page you are on to a Thoughtfully folder, with a note, in two clicks with the Chrome extension.",
  },
];

export async function loader() {
  return json({
    storeUrl: env.CHROME_EXTENSION_URL ?? "https://chromewebstore.google.com/search/Thoughtfully",
    appUrl: env.APP_URL,
  });
}

const DEFAULT_APP_URL = "http://localhost:3000";

export default function ChromeExtension() {
  const { storeUrl, appUrl } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Chrome Extension">
      <p className="text-lg">
        Found something worth sharing? Save the page you are on to one of your folders, with a note,
        in two clicks.
      </p>

      <ol className="mt-6 grid gap-3 sm:grid-cols-2">
        <li className="rounded-2xl border border-stone-200 bg-white p-5 shadow-xs">
          <span className="text-sm font-semibold uppercase tracking-wide text-brand-700">
            Click one
          </span>
          <span className="mt-1 block text-stone-700">
            Click the Thoughtfully icon in the toolbar and add a note, if you like.
          </span>
        </li>
        <li className="rounded-2xl border border-stone-200 bg-white p-5 shadow-xs">
          <span className="text-sm font-semibold uppercase tracking-wide text-brand-700">
            Click two
          </span>
          <span className="mt-1 block text-stone-700">
            Choose a folder on the Thoughtfully page that opens. The link, its title and your note
            wait there for the next send.
          </span>
        </li>
      </ol>

      <div className="mt-8 flex flex-col items-start gap-3 sm:flex-row sm:items-center">
        <a href={storeUrl} className="btn-primary px-8 py-3 text-base text-white! no-underline!">
          Add to Chrome
        </a>
        <span className="text-sm text-stone-600">Opens the Chrome Web Store.</span>
      </div>

      <p>
        The extension asks for two permissions. <code className="text-sm">activeTab</code> lets it
        see only the tab you are on, and only at the moment you click its icon;{" "}
        <code className="text-sm">storage</code> remembers your Thoughtfully address. It reads no
        other site and sends nothing by itself: Save opens Thoughtfully in a new tab with the page's
        address, its title and your note, and you choose the folder there.
      </p>
      <p>
        Or connect it once: Connect asks you, on Thoughtfully, to give the extension its own access
        token (never your sign-in cookie). Connected, it lists your folders, remembers the last one
        and saves the page with one click, without leaving it. Revoke its access any time under
        Profile Settings → API tokens.
      </p>

      <h2>Until it is in the store: load it unpacked</h2>
      <p>If the extension is not in the Chrome Web Store yet, you can install it yourself:</p>
      <ol className="mt-3 list-decimal space-y-2 pl-6 leading-relaxed text-stone-700 marker:font-semibold marker:text-brand-700">
        <li>
          Download or clone the Thoughtfully project to your computer (or unzip the package made by{" "}
          <code className="text-sm">npm run extension:zip</code>, found in{" "}
          <code className="text-sm">extension/dist</code>).
        </li>
        <li>
          In Chrome, type <code className="break-all text-sm">chrome://extensions</code> into the
          address bar and press Enter.
        </li>
        <li>Turn on Developer mode, at the top right of the page.</li>
        <li>
          Click <strong>Load unpacked</strong>.
        </li>
        <li>
          Choose the <code className="text-sm">extension</code> folder inside the project (or the
          unzipped folder).
        </li>
        <li>Pin Thoughtfully from the puzzle-piece menu so its icon stays in the toolbar.</li>
        <li>
          If Thoughtfully does not run at{" "}
          <code className="break-all text-sm">{DEFAULT_APP_URL}</code>, open the extension's{" "}
          <strong>Options</strong> and enter its address
          {appUrl === DEFAULT_APP_URL ? (
            "."
          ) : (
            <>
              : <code className="break-all text-sm">{appUrl}</code>.
            </>
          )}
        </li>
      </ol>

      <section
        aria-labelledby="firefox"
        className="mt-10 rounded-2xl border border-brand-200 bg-brand-50 p-5 sm:p-6"
      >
        <h2 id="firefox" className="mt-0!">
          Firefox: Coming Soon
        </h2>
        <p>
          A Firefox version is on its way. Until then, the bookmarklet below works in Firefox too.
        </p>
      </section>

      <h2 id="bookmarklet">No extension? Use the bookmarklet</h2>
      <p>
        The bookmarklet does the same job in any browser, Firefox and Safari included, and where
        extensions are not allowed.
      </p>
      <div className="mt-4 rounded-2xl border border-stone-200 bg-white p-5 shadow-xs">
        <Bookmarklet appUrl={appUrl} />
      </div>

      <h2>On your phone</h2>
      <p>
        On Android, open Thoughtfully in Chrome and add it to your home screen. From then on, Share
        → Thoughtfully in any app sends the page, or a photo from your gallery, a PDF or a Word
        file, to Thoughtfully: the folder you last added to is already chosen, and one Save tap
        keeps it there. You will be asked to <Link to="/login">log in</Link> the first time (no
        account yet? <Link to="/signup">Sign up</Link>).
      </p>
      <p>
        On iPhone and iPad, iOS does not let a web app receive shares: use the bookmarklet above in
        Safari, or the Shortcut whose recipe is on your <Link to="/profile">Profile Settings</Link>{" "}
        page. To save a photo from an iPhone, use an Apple Shortcut that uploads it with an API
        token (made on Profile Settings), or e-mail the photo to the folder's own address where a
        folder's page shows one.
      </p>
    </StaticPage>
  );
}
