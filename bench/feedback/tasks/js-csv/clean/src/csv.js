/**
 * Parses one CSV line: fields separated by commas, a field in double quotes
 * may hold commas, and `""` inside quotes is one quote.
 * @param {string} line
 * @returns {string[]}
 */
export function parseLine(line) {
  /** @type {string[]} */
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ",") {
      fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  fields.push(field);
  return fields;
}

/**
 * Parses a whole document whose first line names the columns.
 * @param {string} text
 * @returns {Record<string, string>[]}
 */
export function parseRecords(text) {
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length === 0) {
    return [];
  }
  const header = parseLine(lines[0]);
  return lines.slice(1).map((line) => {
    const values = parseLine(line);
    /** @type {Record<string, string>} */
    const record = {};
    header.forEach((name, i) => {
      record[name] = values[i] ?? "";
    });
    return record;
  });
}

/**
 * Quotes a field when it needs quotes.
 * @param {string} field
 * @returns {string}
 */
export function quote(field) {
  if (/[",\n]/.test(field)) {
    return `"${field.replaceAll('"', '""')}"`;
  }
  return field;
}
