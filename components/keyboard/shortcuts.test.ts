// The keyboard rules without a browser: what each screen offers, and when a key is a shortcut.
import { describe, expect, it } from "vitest";
import {
  commandFor,
  isTypingTarget,
  type KeyPress,
  rowsOf,
  shortcutsFor,
  stepIndex,
} from "./shortcuts";

const press = (key: string, held: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...held,
});
const body = { tagName: "BODY" };
const keys = (path: string) => shortcutsFor(path).map((s) => s.key);

describe("shortcutsFor", () => {
  it("offers ticking and the bulk dialogs only on the dead-letter list", () => {
    expect(keys("/dead-letters")).toEqual([
      "j",
      "k",
      "Enter",
      "x",
      "a",
      "r",
      "p",
      "/",
      "Escape",
      "?",
    ]);
    expect(keys("/tasks")).toEqual(["j", "k", "Enter", "/", "Escape", "?"]);
    expect(keys("/ledger")).toEqual(["j", "k", "Enter", "/", "Escape", "?"]);
  });

  it("has no search key where the screen has no search field", () => {
    expect(keys("/inbox")).toEqual(["j", "k", "Enter", "Escape", "?"]);
    expect(keys("/why")).toEqual(["/", "Escape", "?"]);
  });

  it("offers a task's review dialogs on its page, not row keys", () => {
    expect(keys("/tasks/0b6f3c1e-0000-4000-8000-000000000000")).toEqual([
      "a",
      "r",
      "p",
      "Escape",
      "?",
    ]);
  });

  it("offers only help and Escape elsewhere", () => {
    expect(keys("/settings/users")).toEqual(["Escape", "?"]);
    expect(keys("/settings/retry-policies")).toEqual(["Escape", "?"]);
  });

  it("walks the overview's waiting items and opens them, with no actions", () => {
    expect(keys("/")).toEqual(["j", "k", "Enter", "Escape", "?"]);
  });

  it("offers each approval request's own approve and reject, not ticking or replay", () => {
    expect(keys("/approvals")).toEqual(["j", "k", "Enter", "a", "r", "Escape", "?"]);
    expect(shortcutsFor("/approvals").find((s) => s.command === "approve")?.does).toMatch(
      /selected request/,
    );
  });

  it("says what Enter does on the ledger", () => {
    expect(shortcutsFor("/ledger").find((s) => s.command === "open")?.does).toMatch(/entry's data/);
  });
});

describe("rowsOf", () => {
  it("walks only the overview's waiting list, not the ledger rows it also shows", () => {
    expect(rowsOf("/")).toEqual({
      selector: 'main [data-kb-list="waiting"] [data-kb-row]',
      rowActions: false,
    });
    expect(rowsOf("/ledger")).toEqual({ selector: "main [data-kb-row]", rowActions: false });
  });

  it("acts on the selected row's buttons only on the approvals screen", () => {
    expect(rowsOf("/approvals")?.rowActions).toBe(true);
    expect(rowsOf("/dead-letters")?.rowActions).toBe(false);
  });

  it("has no rows off the list screens", () => {
    expect(rowsOf("/tasks/0b6f3c1e-0000-4000-8000-000000000000")).toBeNull();
    expect(rowsOf("/settings/users")).toBeNull();
  });
});

describe("commandFor", () => {
  const list = shortcutsFor("/dead-letters");

  it("maps a listed key to its command", () => {
    expect(commandFor(press("j"), body, list)).toBe("next");
    expect(commandFor(press("x"), body, list)).toBe("toggle");
    expect(commandFor(press("r"), body, list)).toBe("reject");
    expect(commandFor(press("?", { shiftKey: true }), body, list)).toBe("help");
    expect(commandFor(press("Escape"), body, list)).toBe("escape");
  });

  it("leaves keys typed into a field to the field", () => {
    for (const target of [
      { tagName: "INPUT", type: "search" },
      { tagName: "INPUT" },
      { tagName: "TEXTAREA" },
      { tagName: "SELECT" },
      { tagName: "DIV", isContentEditable: true },
    ]) {
      expect(commandFor(press("j"), target, list)).toBeNull();
      expect(commandFor(press("/"), target, list)).toBeNull();
    }
  });

  it("still works from a checkbox or a link", () => {
    expect(commandFor(press("x"), { tagName: "INPUT", type: "checkbox" }, list)).toBe("toggle");
    expect(commandFor(press("k"), { tagName: "A" }, list)).toBe("previous");
  });

  it("ignores a key held with Ctrl, Cmd, Alt, or Shift where the key does not need it", () => {
    expect(commandFor(press("r", { ctrlKey: true }), body, list)).toBeNull();
    expect(commandFor(press("r", { metaKey: true }), body, list)).toBeNull();
    expect(commandFor(press("j", { altKey: true }), body, list)).toBeNull();
    expect(commandFor(press("J", { shiftKey: true }), body, list)).toBeNull();
    expect(commandFor(press("x", { isComposing: true }), body, list)).toBeNull();
  });

  it("ignores keys the screen does not list", () => {
    expect(commandFor(press("x"), body, shortcutsFor("/tasks"))).toBeNull();
    expect(commandFor(press("j"), body, shortcutsFor("/settings/users"))).toBeNull();
    expect(commandFor(press("q"), body, list)).toBeNull();
  });
});

describe("isTypingTarget", () => {
  it("knows fields from controls", () => {
    expect(isTypingTarget(null)).toBe(false);
    expect(isTypingTarget({ tagName: "BUTTON" })).toBe(false);
    expect(isTypingTarget({ tagName: "INPUT", type: "radio" })).toBe(false);
    expect(isTypingTarget({ tagName: "INPUT", type: "email" })).toBe(true);
  });
});

describe("stepIndex", () => {
  it("starts at the first row and holds at both ends", () => {
    expect(stepIndex(-1, 1, 3)).toBe(0);
    expect(stepIndex(-1, -1, 3)).toBe(0);
    expect(stepIndex(0, 1, 3)).toBe(1);
    expect(stepIndex(2, 1, 3)).toBe(2);
    expect(stepIndex(0, -1, 3)).toBe(0);
    expect(stepIndex(2, -1, 3)).toBe(1);
  });

  it("has nowhere to go in an empty list, and restarts when the row it was on is gone", () => {
    expect(stepIndex(-1, 1, 0)).toBe(-1);
    expect(stepIndex(5, 1, 3)).toBe(0);
  });
});
