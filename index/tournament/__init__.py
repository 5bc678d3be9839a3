"""The tournament documents: the MTR, the IPG, Judging at Regular REL and their digital versions.

Read from the PDFs Wizards publishes (or their text) by :mod:`.reader`, stored by effective
date beside the CR editions by :mod:`.store`, looked up by section by :mod:`.lookup`.
"""
