/**
 * The date a chat template sees when it calls `strftime_now` (Llama 3.1/3.2 write
 * "Today Date: 26 Jul 2024" into every system header). Hugging Face renders the wall clock,
 * so the same judge would read a different prompt each night; Assay renders this fixed
 * day instead, so the same model and assay.json give the same prompt, token for token,
 * every night. It is the day Llama's own templates fall back to when no clock is given.
 */
export const DEFAULT_TEMPLATE_DATE = "2024-07-26";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * `format` written as Python's `datetime.strftime` writes it in the C locale, for midnight
 * of `isoDate` (YYYY-MM-DD): English month and day names whatever the machine's locale,
 * so the prompt does not depend on where it is rendered. A directive this does not know
 * is refused rather than guessed.
 */
export function strftimeOn(isoDate: string, format: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(isoDate);
  if (match === null)
    throw new Error(`the template date ${JSON.stringify(isoDate)} is not YYYY-MM-DD`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const startOfYear = Date.UTC(year, 0, 1);
  const dayOfYear = Math.round((date.getTime() - startOfYear) / 86_400_000) + 1;
  const monthName = MONTHS[month - 1] ?? "";
  const weekday = WEEKDAYS[date.getUTCDay()] ?? "";
  const fields: Record<string, string> = {
    Y: String(year),
    y: pad(year % 100),
    m: pad(month),
    d: pad(day),
    e: String(day).padStart(2, " "),
    b: monthName.slice(0, 3),
    h: monthName.slice(0, 3),
    B: monthName,
    a: weekday.slice(0, 3),
    A: weekday,
    j: pad(dayOfYear, 3),
    H: "00",
    I: "12",
    M: "00",
    S: "00",
    p: "AM",
    F: `${year}-${pad(month)}-${pad(day)}`,
    "%": "%",
  };
  return format.replace(/%(.)/gsu, (_, directive: string) => {
    const value = fields[directive];
    if (value === undefined) {
      throw new Error(
        `the chat template calls strftime_now with "%${directive}", which Assay does not render: set "chat": { "options": { "date_string": "…" } } in assay.json to give the template its date text`,
      );
    }
    return value;
  });
}

/** Whether `isoDate` is a real calendar day written YYYY-MM-DD. */
export function isCalendarDate(isoDate: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(isoDate);
  if (match === null) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === isoDate;
}
