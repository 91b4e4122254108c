"""Per-section computations: what a section notebook glues, as plain functions testable without papermill.

- :mod:`selfconf.sections.design`        the design page's roster, exclusion, routing and benchmark-age counts
- :mod:`selfconf.sections.introduction`  the introduction's range of Brier changes (claim C3)
- :mod:`selfconf.sections.ladder`        Result 2's profile-injection ladder and Result 3's frontier rung
- :mod:`selfconf.sections.manipulation`  Result 3's manipulation probes and the limitation arms
- :mod:`selfconf.sections.pageresult`    the result of a section's compute(): glued values by part of the page, tables
- :mod:`selfconf.sections.realanswers`   Result 1's claims tested on real third-party answers
- :mod:`selfconf.sections.result1`       Result 1's Table 1, calibration, discrimination, Table 2, panels and Figure 1
"""
