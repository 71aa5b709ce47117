"""Starting, health-checking and stopping the real programs adapters drive."""

import threading

# Held while a program is being spawned. A worker that must kill everything it started (its parent
# died, its deadline passed) takes this lock first, so no program can be started behind its back.
SPAWN_LOCK = threading.Lock()
