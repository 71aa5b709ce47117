"""Starting, health-checking and stopping the real programs adapters drive."""
