const REPLACEMENTS = new Map([
  ["&", " and "],
  ["@", " at "],
  ["+", " plus "],
]);

/**
 * A URL slug: lower case ASCII letters and digits joined by single dashes.
 * @param {string} title
 * @param {number} [maxLength]
 * @returns {string}
 */
export function slugify(title, maxLength = 60) {
  let text = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  for (const [from, to] of REPLACEMENTS) {
    text = text.replaceAll(from, to);
  }
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > maxLength) {
      break;
    }
    slug = next;
  }
  return slug;
}

/**
 * The slug, made unique among those taken by a numeric suffix.
 * @param {string} title
 * @param {Set<string>} taken
 * @returns {string}
 */
export function uniqueSlug(title, taken) {
  const base = slugify(title);
  let candidate = base;
  let n = 2;
  while (taken.has(candidate)) {
    candidate = `${base}-${n}`;
    n += 1;
  }
  taken.add(candidate);
  return candidate;
}
