"""Native-interface baselines: the access an application's own scripting interface gives an agent.

``asil.native.uno`` is the LibreOffice UNO execution channel (model-written Python-UNO, confined);
``demos/`` holds scripted UNO demonstrations for core tasks (see ``asil.agents.uno``).
"""
