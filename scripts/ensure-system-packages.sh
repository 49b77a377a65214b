#!/usr/bin/env bash
# The test suite drives Debian's Chromium and its headless shell (Playwright's own
# browser download is not available here) and checks e-mails with Debian's SpamAssassin; the app
# transcodes videos with Debian's ffmpeg (docs/decisions/0205-videos-transcoded-by-ffmpeg.md).
# Install whichever is missing with apt.
set -euo pipefail
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd="sudo"
fi
updated=""
apt_install() {
  if [ -z "$updated" ]; then
    $sudo_cmd apt-get update -qq
    updated=1
  fi
  echo "Installing Debian package(s): $*"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
[ -x "${CHROMIUM_HEADLESS_SHELL_PATH:-/usr/bin/chromium-headless-shell}" ] ||
  apt_install chromium-headless-shell
# Without its recommends: sa-compile would spend minutes compiling rules the
# tests do not need, and spamc is the daemon's client.
command -v spamassassin >/dev/null 2>&1 || apt_install --no-install-recommends spamassassin
# The app starts ffmpeg through util-linux's setpriv, so that it dies with the server.
command -v setpriv >/dev/null 2>&1 || apt_install util-linux
# Without its recommends: ffmpeg and ffprobe are all the app runs.
{ command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; } ||
  apt_install --no-install-recommends ffmpeg
