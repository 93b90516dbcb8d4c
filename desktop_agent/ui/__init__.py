"""The Qt window. Everything here renders core events and calls core; core never imports this package.

Entry point: :func:`desktop_agent.ui.main_window.run_gui`. Only :mod:`PySide6` and the light core
modules are imported before the window shows; the model clients, keyring, markdown-it and Pygments load
after it is up (see ``MainWindow._late_init``).
"""
