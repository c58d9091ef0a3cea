// Addresses of the dead-letter screen: a filter (and page) as /dead-letters?…
export type DeadLetterLink = {
  reason?: string;
  fingerprint?: string;
  agent?: string;
  tool?: string;
  age?: string;
  /** "include": the product's own alert deliveries are listed and counted too. */
  system?: string;
  before?: string;
  /**
   * "all": the list opens with every task matching the filter selected (a way in that offers a
   * whole group to act on); not part of the filter, and dropped by any other link or the form.
   */
  select?: "all";
};

export function deadLettersHref(params: DeadLetterLink): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string" && value !== "") query.set(name, value);
  }
  const text = query.toString();
  return text ? `/dead-letters?${text}#dead-letter-list` : "/dead-letters";
}
