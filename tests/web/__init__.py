"""The browser client driven by Debian's Chromium through Playwright."""
