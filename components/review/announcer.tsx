"use client";
// One polite status region for a screen's review actions. A control that did its job may vanish
// on refresh (an approved row leaves the pending list), so the message lives here, not in it.
import { createContext, type ReactNode, useContext, useState } from "react";

const Announce = createContext<(message: ReactNode) => void>(() => {});

export function useAnnounce(): (message: ReactNode) => void {
  return useContext(Announce);
}

export function ReviewAnnouncer({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState<ReactNode>(null);
  return (
    <Announce.Provider value={setMessage}>
      <div
        role="status"
        data-testid="review-status"
        className={
          message
            ? "mb-4 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 ring-1 ring-emerald-200 ring-inset"
            : "sr-only"
        }
      >
        {message}
      </div>
      {children}
    </Announce.Provider>
  );
}
