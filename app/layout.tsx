import type { Metadata } from "next";
import type { ReactNode } from "react";
import { readTheme } from "../components/theme/read-theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Agent Ledger", template: "%s · Agent Ledger" },
  description:
    "Background AI agents on PostgreSQL, with an append-only ledger of everything they did.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme comes with the HTML (from its cookie), so the first paint is already in it.
  const theme = await readTheme();
  return (
    <html lang="en" data-theme={theme}>
      <body className="min-h-dvh font-sans">{children}</body>
    </html>
  );
}
