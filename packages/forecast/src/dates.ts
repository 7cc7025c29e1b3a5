/**
 * Calendar dates as integers (days since 1970-01-01, proleptic Gregorian).
 *
 * Deliberately avoids `Date`: it would tie results to the host's time-zone
 * rules and its two-digit-year quirks, and the library must never touch the
 * clock. Conversions follow Howard Hinnant's civil-calendar algorithms.
 */

const ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** True for a real calendar day written exactly as YYYY-MM-DD with year >= 1. */
export function isCalendarDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

// The regex has already guaranteed ASCII digits, so this is plain integer
// accumulation; no string-to-float conversion is involved anywhere.
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + (text.charCodeAt(i) - 48);
  return value;
}

/** Day number of a valid date string. */
export function toDayNumber(text: string): number {
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Date string of a day number (inverse of `toDayNumber`). */
export function fromDayNumber(dayNumber: number): string {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** Number of calendar days in the half-open interval [start, end) of valid dates. */
export function daysBetween(start: string, end: string): number {
  return toDayNumber(end) - toDayNumber(start);
}

/** Every date of the half-open interval [start, end), in order. */
export function datesInRange(start: string, end: string): string[] {
  const first = toDayNumber(start);
  const last = toDayNumber(end);
  const dates: string[] = [];
  for (let day = first; day < last; day++) dates.push(fromDayNumber(day));
  return dates;
}
