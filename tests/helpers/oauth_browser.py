"""A stand-in for the user's browser in sign-in tests, used as ``BROWSER="python -m tests.helpers.oauth_browser %s"``:
it opens the authorization URL, consents (the test's authorization server consents at once) and follows the
redirects to the app's listener on 127.0.0.1, as a browser would; it prints the page it landed on."""

from __future__ import annotations

import sys

import httpx

if __name__ == "__main__":
    page = httpx.get(sys.argv[1], follow_redirects=True, timeout=60)
    print(page.status_code, page.text[:200])
