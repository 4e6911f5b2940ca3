"""bring-up"""
