"""``jaxsolve serve``: a local web page over the game registry (advisor and play).

``api`` answers the page's questions with the library calls the command line makes (a game's
``advise`` command, ``jaxsolve.play``), framework-free and JSON in, JSON out; ``server`` puts
it behind Starlette routes served by uvicorn and ships the page (``static/``: plain HTML, CSS
and JavaScript, no build step, nothing fetched from the network). See docs/web.md.
"""
