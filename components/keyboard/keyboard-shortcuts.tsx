"use client";
// The dashboard's keyboard shortcuts, mounted once by the layout. It acts on what the page
// already renders, through the same controls a mouse uses: rows marked `data-kb-row` (j/k move
// focus to the row's link or expand button and mark the row aria-current, so a screen reader
// hears the link and the row stays a link), the row's checkbox (x), the dialog triggers that
// carry `aria-keyshortcuts` (a/r/p open the existing confirmation dialog, never act: the
// screen's, or on a screen of requests the selected row's own), the screen's <search> field (/). Native modal dialogs own the keyboard while open (Esc closes them).
import { usePathname } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import {
  commandFor,
  keyOf,
  rowsOf,
  type Shortcut,
  type ShortcutCommand,
  shortcutsFor,
  stepIndex,
} from "./shortcuts";

const SELECTED = "aria-current";
// The selection ring; a row's own classes are its component's, so the ring is drawn from here.
const RING_CSS = `[data-kb-row][aria-current="true"]{outline:2px solid #0284c7;outline-offset:-2px;background-color:rgb(14 165 233 / 0.08)}`;
const SEARCH_FIELD =
  'main search input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]):not([type="submit"]), main search select';

function rows(selector: string): HTMLElement[] {
  return Array.from(document.querySelectorAll<HTMLElement>(selector));
}

/** What Enter opens in a row: its own marker, else its expand button, else its first link. */
function primaryOf(row: HTMLElement): HTMLElement | null {
  return (
    row.querySelector<HTMLElement>("[data-kb-open]") ??
    row.querySelector<HTMLElement>("button[aria-expanded]") ??
    row.querySelector<HTMLElement>("a[href]")
  );
}

/** Focus on the page itself, not on a control that handles Enter on its own. */
function focusIsFree(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active.tagName === "MAIN";
}

const ACTION_KEYS: Partial<Record<ShortcutCommand, string>> = {
  approve: keyOf("approve"),
  reject: keyOf("reject"),
  replay: keyOf("replay"),
};

export function KeyboardShortcuts({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const shortcuts = useMemo(() => shortcutsFor(pathname), [pathname]);
  const list = useMemo(() => rowsOf(pathname), [pathname]);
  const [message, setMessage] = useState("");
  const selected = useRef<string | null>(null);
  const help = useRef<HTMLDialogElement>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  // Set once the key listener is attached (before hydration a key press does nothing).
  const [listening, setListening] = useState(false);
  const titleId = useId();

  const clearSelection = useCallback(() => {
    for (const row of document.querySelectorAll(`[data-kb-row][${SELECTED}]`)) {
      row.removeAttribute(SELECTED);
    }
    selected.current = null;
  }, []);

  // A new screen starts with nothing selected.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path change is the trigger
  useEffect(() => {
    selected.current = null;
    setMessage("");
  }, [pathname]);

  useEffect(() => {
    const dialog = help.current;
    if (!dialog) return;
    if (helpOpen && !dialog.open) dialog.showModal();
    if (!helpOpen && dialog.open) dialog.close();
  }, [helpOpen]);

  useEffect(() => {
    const select = (row: HTMLElement) => {
      clearSelection();
      row.setAttribute(SELECTED, "true");
      selected.current = row.dataset.kbRow ?? null;
      const primary = primaryOf(row);
      if (primary) primary.focus();
      else row.scrollIntoView({ block: "nearest" });
    };
    const current = (list: HTMLElement[]) => {
      const active = document.activeElement;
      const holding = list.findIndex((r) => active instanceof Node && r.contains(active));
      if (holding >= 0) return holding;
      return list.findIndex((r) => r.dataset.kbRow === selected.current);
    };
    const rowSelector = list?.selector ?? "main [data-kb-row]";
    const selectedRow = () => {
      const all = rows(rowSelector);
      return all[current(all)];
    };
    // Returns whether the key was used (and so is kept from the page).
    const run = (command: ShortcutCommand): boolean => {
      switch (command) {
        case "next":
        case "previous": {
          const all = rows(rowSelector);
          const at = stepIndex(current(all), command === "next" ? 1 : -1, all.length);
          const row = all[at];
          if (!row) {
            setMessage("There are no rows to select on this screen.");
            return true;
          }
          select(row);
          setMessage("");
          return true;
        }
        case "open": {
          const row = selectedRow();
          if (!row || !focusIsFree()) return false;
          primaryOf(row)?.click();
          return true;
        }
        case "toggle": {
          const row = selectedRow();
          const box = row?.querySelector<HTMLInputElement>('input[type="checkbox"]');
          if (!row) setMessage("Select a row with j or k first.");
          else if (!box || box.disabled) setMessage("This row cannot be ticked.");
          else {
            box.click();
            setMessage("");
          }
          return true;
        }
        case "approve":
        case "reject":
        case "replay": {
          const key = ACTION_KEYS[command] ?? "";
          // A screen of requests has one set of buttons per row: the key acts on the selected
          // request's, never on whichever request happens to come first.
          const scope: ParentNode | undefined = list?.rowActions
            ? selectedRow()
            : (document.querySelector("main") ?? undefined);
          if (!scope) {
            setMessage(
              list?.rowActions
                ? "Select a request with j or k first."
                : "That action is not available here right now.",
            );
            return true;
          }
          const triggers = Array.from(
            scope.querySelectorAll<HTMLButtonElement>(`button[aria-keyshortcuts="${key}"]`),
          );
          const trigger = triggers.find((b) => !b.disabled);
          if (trigger) {
            setMessage("");
            trigger.click();
          } else if (triggers.length > 0 && shortcuts.some((s) => s.command === "toggle")) {
            setMessage("Nothing is ticked: tick rows with x, or select all matching, first.");
          } else {
            setMessage("That action is not available here right now.");
          }
          return true;
        }
        case "escape": {
          if (selected.current === null) return false;
          // Focus leaves the row too, so the next j starts again from the top.
          const active = document.activeElement;
          if (active instanceof HTMLElement && active.closest("[data-kb-row]")) active.blur();
          clearSelection();
          setMessage("Selection cleared.");
          return true;
        }
        case "search": {
          const field =
            document.querySelector<HTMLElement>("main [data-kb-search]") ??
            document.querySelector<HTMLElement>(SEARCH_FIELD);
          if (!field) {
            setMessage("This screen has no search field.");
            return true;
          }
          field.focus();
          setMessage("");
          return true;
        }
        case "help":
          setHelpOpen(true);
          return true;
      }
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      // An open modal dialog has the keyboard; the browser closes it on Escape.
      if (document.querySelector("dialog[open]")) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      const command = commandFor(
        event,
        target && {
          tagName: target.tagName,
          type: target instanceof HTMLInputElement ? target.type : undefined,
          isContentEditable: target.isContentEditable,
        },
        shortcuts,
      );
      if (command && run(command)) event.preventDefault();
    };
    document.addEventListener("keydown", onKeyDown);
    setListening(true);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [shortcuts, list, clearSelection]);

  return (
    <>
      <style>{RING_CSS}</style>
      {children}
      <div className="mt-10 flex justify-end border-t border-slate-200 pt-3">
        <button
          type="button"
          onClick={() => setHelpOpen(true)}
          aria-keyshortcuts="?"
          className="rounded px-2 py-1 text-xs font-medium text-slate-600 underline-offset-2 hover:text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
          data-testid="keyboard-help-open"
          data-listening={listening ? "" : undefined}
        >
          Keyboard shortcuts (?)
        </button>
      </div>
      <p
        role="status"
        data-testid="keyboard-status"
        className={
          message
            ? "pointer-events-none fixed bottom-4 left-1/2 z-40 -translate-x-1/2 rounded-md bg-slate-900 px-3 py-2 text-sm text-white shadow-lg"
            : "sr-only"
        }
      >
        {message}
      </p>
      <dialog
        ref={help}
        aria-labelledby={titleId}
        onClose={() => setHelpOpen(false)}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
      >
        {helpOpen ? (
          <HelpBody titleId={titleId} shortcuts={shortcuts} close={() => setHelpOpen(false)} />
        ) : null}
      </dialog>
    </>
  );
}

function HelpBody({
  titleId,
  shortcuts,
  close,
}: {
  titleId: string;
  shortcuts: Shortcut[];
  close: () => void;
}) {
  return (
    <div className="px-5 py-4">
      <div className="mb-3 flex items-start justify-between gap-3">
        <h2 id={titleId} className="text-base font-semibold">
          Keyboard shortcuts on this screen
        </h2>
        <button
          type="button"
          className="rounded px-2 text-lg leading-none text-slate-600 hover:text-slate-900"
          aria-label="Close"
          onClick={close}
        >
          ×
        </button>
      </div>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Keys and what they do</caption>
        <thead>
          <tr>
            <th scope="col" className="py-1 pr-4 text-xs font-semibold text-slate-600 uppercase">
              Key
            </th>
            <th scope="col" className="py-1 text-xs font-semibold text-slate-600 uppercase">
              Does
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {shortcuts.map((s) => (
            <tr key={s.command}>
              <td className="py-1.5 pr-4">
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">
                  {s.key === "Escape" ? "Esc" : s.key}
                </kbd>
              </td>
              <td className="py-1.5">{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-3 text-xs text-slate-600">
        Shortcuts wait while you type in a field or hold Ctrl, Alt or ⌘. Actions always open their
        confirmation first.
      </p>
    </div>
  );
}
