"""The Audacity adapter (scripted Audacity through mod-script-pipe)."""
