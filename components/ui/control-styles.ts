// The look of form controls and buttons, one set for the review dialogs and the admin forms.
const focus = "focus-visible:outline-2 focus-visible:outline-offset-2";

/** A bordered text control under its label. */
export const inputClass =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs focus:border-sky-500 focus:ring-2 focus:ring-sky-200 focus:outline-none aria-[invalid=true]:border-rose-500";
export const primaryButton = `rounded-md bg-slate-900 px-3 py-1.5 text-sm font-semibold text-white shadow-xs hover:bg-slate-700 ${focus} focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:opacity-60`;
export const secondaryButton = `rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50 ${focus} focus-visible:outline-sky-500 disabled:cursor-not-allowed disabled:opacity-60`;
export const dangerButton = `rounded-md bg-rose-700 px-3 py-1.5 text-sm font-semibold text-white shadow-xs hover:bg-rose-600 ${focus} focus-visible:outline-rose-500 disabled:cursor-not-allowed disabled:opacity-60`;
