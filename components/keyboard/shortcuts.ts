// Which keyboard shortcuts a dashboard screen offers, and how a key press maps to one. Pure, so
// the rules (never while typing, never with a modifier, only what this screen lists) are tested
// without a browser; the provider applies them to the page.

export type ShortcutCommand =
  | "next"
  | "previous"
  | "open"
  | "toggle"
  | "approve"
  | "reject"
  | "replay"
  | "escape"
  | "search"
  | "help";

export type Shortcut = { key: string; command: ShortcutCommand; does: string };

const KEY_OF: Record<ShortcutCommand, string> = {
  next: "j",
  previous: "k",
  open: "Enter",
  toggle: "x",
  approve: "a",
  reject: "r",
  replay: "p",
  escape: "Escape",
  search: "/",
  help: "?",
};

/** The key each command answers to, as `aria-keyshortcuts` spells it. */
export function keyOf(command: ShortcutCommand): string {
  return KEY_OF[command];
}

function shortcut(command: ShortcutCommand, does: string): Shortcut {
  return { key: KEY_OF[command], command, does };
}

/** Every row of the screen's main area, where a screen does not narrow it. */
const ALL_ROWS = "main [data-kb-row]";

type ListScreen = {
  match: RegExp;
  open: string;
  /** Where the rows j/k walk are, when the screen has other tagged rows it does not walk. */
  rows?: string;
  /**
   * What a/r/p open: "bulk", the bulk dialogs for the ticked rows (x ticks); "row", the selected
   * row's own dialogs (a screen of requests, each with its buttons); absent, none.
   */
  actions?: "bulk" | "row";
};

const LIST_SCREENS: ListScreen[] = [
  { match: /^\/tasks\/?$/, open: "Open the selected task" },
  { match: /^\/dead-letters\/?$/, open: "Open the selected task", actions: "bulk" },
  { match: /^\/inbox\/?$/, open: "Open the selected item's task" },
  { match: /^\/ledger\/?$/, open: "Show or hide the selected entry's data" },
  // The overview also shows the latest ledger rows (tagged for /ledger); j/k walk only the
  // oldest item per kind of wait, the part of the overview that leads to work.
  {
    match: /^\/$/,
    open: "Open the selected waiting item's task",
    rows: 'main [data-kb-list="waiting"] [data-kb-row]',
  },
  { match: /^\/approvals\/?$/, open: "Open the selected request's task", actions: "row" },
];

/**
 * The rows j/k walk on a screen, and whether a/r act on the selected row's own buttons (else
 * on the screen's); null on a screen without rows.
 */
export function rowsOf(pathname: string): { selector: string; rowActions: boolean } | null {
  const list = LIST_SCREENS.find((s) => s.match.test(pathname));
  if (!list) return null;
  return { selector: list.rows ?? ALL_ROWS, rowActions: list.actions === "row" };
}

const SEARCH_SCREENS = /^\/(why|tasks|dead-letters|ledger)\/?$/;
const TASK_SCREEN = /^\/tasks\/[^/]+\/?$/;

/** The shortcuts a screen offers, in the order the help dialog lists them. */
export function shortcutsFor(pathname: string): Shortcut[] {
  const out: Shortcut[] = [];
  const list = LIST_SCREENS.find((s) => s.match.test(pathname));
  if (list) {
    out.push(
      shortcut("next", "Select the next row"),
      shortcut("previous", "Select the previous row"),
      shortcut("open", list.open),
    );
    if (list.actions === "bulk") {
      out.push(
        shortcut("toggle", "Tick or untick the selected row"),
        shortcut("approve", "Resume the ticked tasks (opens the confirmation)"),
        shortcut("reject", "Reject the ticked tasks (opens the confirmation)"),
        shortcut("replay", "Replay the ticked tasks (opens the confirmation)"),
      );
    } else if (list.actions === "row") {
      out.push(
        shortcut("approve", "Approve the selected request (opens the confirmation)"),
        shortcut("reject", "Reject the selected request (opens the confirmation)"),
      );
    }
  } else if (TASK_SCREEN.test(pathname)) {
    out.push(
      shortcut("approve", "Approve or resume this task (opens the confirmation)"),
      shortcut("reject", "Reject this task (opens the confirmation)"),
      shortcut("replay", "Replay this task from a step (opens the confirmation)"),
    );
  }
  if (SEARCH_SCREENS.test(pathname))
    out.push(shortcut("search", "Go to the search or filter field"));
  out.push(
    shortcut("escape", list ? "Close a dialog, or clear the selection" : "Close a dialog"),
    shortcut("help", "Show these shortcuts"),
  );
  return out;
}

/** What a key press needs from the event; a KeyboardEvent has all of it. */
export type KeyPress = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
};

/** The element the key press is aimed at, as far as "is the person typing?" goes. */
export type KeyTarget = { tagName: string; type?: string; isContentEditable?: boolean } | null;

const NOT_TYPED = new Set([
  "checkbox",
  "radio",
  "button",
  "submit",
  "reset",
  "image",
  "range",
  "color",
  "file",
]);

/** Keys typed into a field belong to the field: a "j" in a search box is a letter. */
export function isTypingTarget(target: KeyTarget): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName.toLowerCase();
  if (tag === "textarea" || tag === "select") return true;
  if (tag !== "input") return false;
  return !NOT_TYPED.has((target.type ?? "text").toLowerCase());
}

/**
 * The command a key press asks for on this screen, or null: nothing while typing, with Ctrl,
 * Cmd or Alt held (the browser's and the screen reader's own shortcuts), or for a key the
 * screen does not list. Shift only counts where the key itself needs it ("?").
 */
export function commandFor(
  press: KeyPress,
  target: KeyTarget,
  shortcuts: readonly Shortcut[],
): ShortcutCommand | null {
  if (press.isComposing || press.ctrlKey || press.metaKey || press.altKey) return null;
  if (isTypingTarget(target)) return null;
  if (press.shiftKey && press.key !== "?") return null;
  return shortcuts.find((s) => s.key === press.key)?.command ?? null;
}

/** The row j/k lands on: one step from the current one, held at the ends; from none, the first. */
export function stepIndex(current: number, delta: 1 | -1, length: number): number {
  if (length === 0) return -1;
  if (current < 0 || current >= length) return 0;
  return Math.min(length - 1, Math.max(0, current + delta));
}
