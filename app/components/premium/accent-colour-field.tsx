import { useEffect, useRef, useState } from "react";
import { ErrorList } from "~/components/ui/forms";
import {
  ACCENT_FIELDS,
  accentContrast,
  MIN_ACCENT_CONTRAST,
  pickerColour,
} from "~/modules/sending/accent-colour";

/**
 * The accent colour: a colour picker and the hex field, kept in step with
 * JavaScript; without it either one may be changed (the server sees which:
 * app/modules/sending/accent-colour.ts). Beside them, the colour's contrast
 * with white, worked out from what the hex field holds.
 */
export function AccentColourField({
  id,
  initialValue,
  errors,
}: {
  id: string;
  initialValue: string;
  errors?: string[] | null;
}) {
  const [text, setText] = useState(initialValue);
  const picker = useRef<HTMLInputElement>(null);
  const hex = useRef<HTMLInputElement>(null);
  const shown = useRef(initialValue);
  // A colour picked or typed before the page's script ran is taken up; React would put the
  // controlled fields back to what the server drew at their next render.
  useEffect(() => {
    const typed = hex.current?.value ?? shown.current;
    const picked = picker.current?.value;
    if (typed !== shown.current) setText(typed);
    else if (picked && picked !== pickerColour(shown.current)) setText(picked);
  }, []);
  const contrast = accentContrast(text);
  const hintId = `${id}-hint`;
  const contrastId = `${id}-contrast`;
  const errorId = errors?.length ? `${id}-error` : undefined;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-stone-800">
        Accent colour (optional)
      </label>
      <div className="mt-1 flex items-center gap-2">
        <input
          ref={picker}
          type="color"
          name={ACCENT_FIELDS.picker}
          value={pickerColour(text)}
          onChange={(event) => setText(event.currentTarget.value)}
          aria-label="Accent colour picker"
          aria-describedby={contrastId}
          className="h-11 w-14 shrink-0 cursor-pointer rounded-lg border border-stone-300 bg-white p-1"
        />
        <input
          ref={hex}
          id={id}
          type="text"
          name={ACCENT_FIELDS.text}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          placeholder="#30503b"
          maxLength={7}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={errorId ? true : undefined}
          aria-describedby={[hintId, contrastId, errorId].filter(Boolean).join(" ")}
          className="block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 font-mono text-stone-900 shadow-xs placeholder:text-stone-400 focus:border-brand-600 focus:outline-hidden focus:ring-2 focus:ring-brand-200 aria-[invalid]:border-red-600"
        />
      </div>
      {/* The hex field as this page showed it: how the server tells a moved picker from a typed colour. */}
      <input type="hidden" name={ACCENT_FIELDS.shown} value={initialValue} />
      <p id={hintId} className="mt-1 text-xs text-stone-600">
        Pick a colour, or type # and six hex digits. Leave empty for ours.
      </p>
      <p id={contrastId} aria-live="polite" className="mt-2 flex items-center gap-2 text-sm">
        {contrast ? (
          <>
            <span
              aria-hidden="true"
              className="h-5 w-8 shrink-0 rounded-sm border border-stone-300"
              style={{ backgroundColor: contrast.colour }}
            />
            <span className={contrast.enough ? "text-stone-700" : "text-red-700"}>
              {contrast.ours ? "Ours: " : ""}contrast with white {contrast.ratio}:{" "}
              {contrast.enough ? "enough" : "too light"} for white text and links (AA needs{" "}
              {MIN_ACCENT_CONTRAST}:1)
            </span>
          </>
        ) : (
          <span className="text-stone-700">Contrast: type # and six hex digits to see it.</span>
        )}
      </p>
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}
