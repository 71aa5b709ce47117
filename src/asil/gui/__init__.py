"""Screenshot-and-click control of the real programs: the GUI participant's environment.

``vocabulary`` (the computer-use actions and the screenshot observation; what agents may import),
``capture`` (screenshots and the settle wait), ``xinput`` (real X input through xdotool) and
``environment`` (one task's episode: the real program in a private Xvfb, its GUI-to-canonical sync,
the unchanged evaluator).
"""
