import { useState } from 'react';

/**
 * The colour theme: the system's (prefers-color-scheme) unless the user picks light or dark. The
 * choice sets `data-theme` on <html>, which styles.css turns into `color-scheme`; every colour is a
 * `light-dark()` pair, so one property switches the whole palette, native controls included. The
 * choice is kept in localStorage (a display preference, nothing secret; the JWT never is).
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'tally.theme';

function storedChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** Applies the stored choice before the first paint (called by main.tsx). */
export function initTheme(): void {
  applyTheme(storedChoice());
}

export function ThemeSelect() {
  const [choice, setChoice] = useState<ThemeChoice>(storedChoice);
  return (
    <label className="theme-select">
      Theme
      <select
        value={choice}
        onChange={(e) => {
          const next = e.target.value as ThemeChoice;
          setChoice(next);
          applyTheme(next);
          try {
            if (next === 'system') localStorage.removeItem(STORAGE_KEY);
            else localStorage.setItem(STORAGE_KEY, next);
          } catch {
            // Storage refused (private mode): the choice lasts for this page.
          }
        }}
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
