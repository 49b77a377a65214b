import { useEffect, useRef } from "react";

/**
 * For a menu built on <details>, which opens and closes without JavaScript:
 * with it, the menu also closes on Escape (focus back on its button), on a
 * tap or click outside it, and once one of its entries is chosen
 * (docs/decisions/0131-toasts-and-menus-that-get-out-of-the-way.md).
 */
export function useDetailsMenu() {
  const menu = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const details = menu.current;
    if (!details) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "Escape" || !details?.open) return;
      details.open = false;
      details.querySelector("summary")?.focus();
    }
    function onPointerDown(event: PointerEvent) {
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    }
    function onEntryChosen(event: MouseEvent) {
      const target = event.target as Element;
      if (target.closest("summary") || !target.closest("a, button")) return;
      // After the click has done its work (a link followed, a form sent).
      setTimeout(() => {
        details!.open = false;
      });
    }
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    details.addEventListener("click", onEntryChosen);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
      details.removeEventListener("click", onEntryChosen);
    };
  }, []);

  return menu;
}
